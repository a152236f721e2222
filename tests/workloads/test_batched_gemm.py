"""Batched GEMM layers: instances with their own operands, run one after the other on every
family, their counters added; workload-file entries and their errors."""
from __future__ import annotations

import numpy as np
import pytest

from accel_sim import load_arch
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.catalog import family_of
from accel_sim.pipeline.simulate import simulate, simulate_layer
from accel_sim.foundations.workload.layer import BatchedGemmLayer, GemmLayer, Network
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.foundations.workload.operands import layer_operands

# One arch per family: every family runs a batched GEMM without a change of its own (instances in
# sequence), except the tensor core, which launches them as one grouped kernel.
ARCHS = ("tpu_like_128x128_ws", "eie", "scnn", "pe_array_skipping", "cnvlutin", "dlu")
LAYER = BatchedGemmLayer("heads", instances=3, m=8, k=32, n=48, weight_density=0.4, input_density=0.6)


def test_instances_are_gemms_with_their_own_operands():
    first, second = LAYER.instance(0), LAYER.instance(1)
    assert isinstance(first, GemmLayer) and (first.m, first.k, first.n) == (8, 32, 48)
    assert first.name == "heads[0]" and second.name == "heads[1]"
    a, b = layer_operands(first), layer_operands(second)
    assert a.weights.shape == b.weights.shape == (32, 48)
    assert not np.array_equal(a.weights, b.weights) and not np.array_equal(a.inputs, b.inputs)
    assert np.count_nonzero(a.weights) == np.count_nonzero(b.weights) == round(0.4 * 32 * 48)
    assert LAYER.macs == 3 * 8 * 32 * 48 and LAYER.weight_elements == 3 * 32 * 48
    assert LAYER.input_elements == 3 * 8 * 32 and LAYER.output_elements == 3 * 8 * 48
    with pytest.raises(IndexError):
        LAYER.instance(3)


@pytest.mark.parametrize("arch_name", ARCHS)
def test_counters_of_the_instances_add_up(arch_name):
    arch = load_arch(arch_name)
    table = load_energy_table(arch.energy_table)
    family = family_of(arch)
    parts = [family.layer_result(arch, LAYER.instance(i)) for i in range(LAYER.instances)]
    run = simulate_layer(arch, LAYER, table)
    whole = run.result
    assert whole.layer == "heads"
    for field in ("cycles", "compute_cycles", "stall_cycles", "macs_dense", "macs_issued", "dram_read_bytes",
                  "dram_write_bytes", "sram_read_bytes", "sram_write_bytes"):
        assert getattr(whole, field) == sum(getattr(p, field) for p in parts), field
    assert whole.macs_dense == LAYER.macs
    separate = sum(simulate_layer(arch, LAYER.instance(i), table).energy.total_pj for i in range(LAYER.instances))
    assert run.energy.total_pj == pytest.approx(separate, rel=1e-12)
    assert whole.metrics["instances"] == 3


def test_tensor_core_runs_the_instances_as_one_grouped_kernel():
    """A GPU launches every instance's CTAs at once: the batched GEMM is the grouped layer of the
    same GEMM view (each group its own operands), faster than the instances in sequence."""
    arch = load_arch("ampere_a100")
    family = family_of(arch)
    grouped = LAYER.as_grouped()
    assert grouped.gemm() == LAYER.gemm() and grouped.macs == LAYER.macs
    assert grouped.weight_elements == LAYER.weight_elements and grouped.input_elements == LAYER.input_elements
    whole = simulate_layer(arch, LAYER).result
    assert whole == family.layer_result(arch, grouped)
    sequential = [family.layer_result(arch, LAYER.instance(i)) for i in range(LAYER.instances)]
    assert whole.macs_dense == sum(p.macs_dense for p in sequential) == LAYER.macs
    assert whole.cycles < sum(p.cycles for p in sequential)


def test_families_consume_different_operands_per_instance():
    """Each instance result carries the hashes of the operands the family read: all differ, and
    the batched result's hash covers them in order."""
    arch = load_arch("eie")
    family = family_of(arch)
    hashes = [family.layer_result(arch, LAYER.instance(i)).operand_hashes["weight_hash"]
              for i in range(LAYER.instances)]
    assert len(set(hashes)) == LAYER.instances
    whole = simulate_layer(arch, LAYER).result.operand_hashes["weight_hash"]
    assert whole not in hashes and len(whole) == 16


def test_network_with_batched_layers_sums_in_the_summary():
    net = Network("n", (LAYER, GemmLayer("fc", m=8, k=32, n=48)))
    assert net.macs == LAYER.macs + 8 * 32 * 48
    run = simulate(load_arch("tpu_like_128x128_ws"), net)
    frame = run.layers_frame()
    assert list(frame["layer"]) == ["heads", "fc"]
    assert frame.loc[0, "macs_dense"] == LAYER.macs


def test_workload_file_entry(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("name: w\nseed: 5\nlayers:\n"
                    "  - {name: s, type: batched_gemm, instances: 4, m: 2, k: 16, n: 32, weight_density: 0.5}\n")
    (layer,) = load_workload(path).layers
    assert isinstance(layer, BatchedGemmLayer)
    assert (layer.instances, layer.m, layer.k, layer.n, layer.weight_density) == (4, 2, 16, 32, 0.5)
    assert layer.operands.seed == 5


@pytest.mark.parametrize(("entry", "message"), [
    ("{name: s, type: batched_gemm, m: 2, k: 16, n: 32}", "needs instances"),
    ("{name: s, type: batched_gemm, instances: 0, m: 2, k: 16, n: 32}", "instances"),
    ("{name: s, type: batched_gemm, instances: 2, m: 0, k: 16, n: 32}", "m must be > 0"),
    ("{name: s, type: gemm, instances: 2, m: 2, k: 16, n: 32}", "does not take instances"),
    ("{name: s, type: batched_gemm, instances: 2, m: 2, k: 16, n: 32, operands: p.npz}", "operands"),
])
def test_bad_entries_name_the_layer(tmp_path, entry, message):
    (tmp_path / "p.npz").write_bytes(b"")
    path = tmp_path / "w.yaml"
    path.write_text(f"name: w\nlayers:\n  - {entry}\n")
    with pytest.raises(InputError) as err:
        load_workload(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_storage_and_trace_see_one_row_per_instance(tmp_path):
    from accel_sim.foundations.workload.storage import StorageOptions, storage_table
    from accel_sim.pipeline.trace.files import write_trace

    net = Network("n", (LAYER,))
    table = storage_table(net, StorageOptions("csr"))
    assert list(table["layer"])[:-1] == ["heads[0]", "heads[1]", "heads[2]"]
    assert table["elements"].iloc[-1] == LAYER.weight_elements  # the total row: every instance's weights
    path = tmp_path / "w.yaml"
    path.write_text("name: w\nlayers:\n  - {name: s, type: batched_gemm, instances: 2, m: 2, k: 8, n: 8}\n")
    paths = write_trace("eie_4pe_example", str(path), tmp_path / "trace", "s[1]")
    assert paths["trace"].is_file()
