"""Conservation laws of the tensor-core model on generated layers and the shipped configs."""
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch, simulate
from accel_sim.foundations.config.loader import ARCH_DIR
from accel_sim.foundations.energy import load_energy_table
from accel_sim.models.tensor_core.counters import LATENCY_BOUND, PATHS
from accel_sim.foundations.workload import ConvLayer, GemmLayer, Network, NMSparsity

AMPERE_CONFIGS = [p for p in sorted(ARCH_DIR.glob("ampere*.yaml")) if load_arch(p).family == "tensor_core"]


def check_laws(arch, network, run):
    table = load_energy_table(arch.energy_table)
    wb = arch.word_bits / 8
    for layer, result, energy in zip(network.layers, run.layers, run.energy):
        assert result.cycles == result.compute_cycles + result.stall_cycles
        assert result.macs_issued + result.macs_skipped == result.macs_dense == layer.macs
        assert result.cycles >= math.ceil(result.macs_issued / result.peak_macs_per_cycle)
        for path in PATHS:   # every path's busy time is a lower bound
            assert result.cycles >= result.metrics[f"{path}_busy_cycles"]
        assert result.metrics["executed_macs"] >= result.macs_issued
        assert sum(result.metrics[f"bound_{p}"] for p in PATHS + (LATENCY_BOUND,)) == 1.0   # one limiter
        sparse = result.metrics["sparse"] == 1.0
        if sparse:
            assert result.macs_issued <= math.ceil(layer.macs / 2) + layer.macs // layer.gemm().k
        weight_bytes = layer.weight_elements * wb * ((arch.word_bits + 2) / (2 * arch.word_bits) if sparse else 1)
        inputs = layer.input_elements if layer.kind == "gemm" else 0   # conv: im2col view, covers the input
        assert result.dram_read_bytes >= math.floor(weight_bytes + inputs * wb)
        assert result.dram_write_bytes >= layer.output_elements * wb
        assert energy.total_pj == pytest.approx(sum(table.energy_pj(a) for a in result.actions))
        assert energy.total_pj == pytest.approx(sum(energy.by_component_pj.values()))
        assert 0 < result.utilization <= 1


layer_strategy = st.one_of(
    st.builds(lambda h, c, k, r, nm: ConvLayer("conv", in_h=h, in_w=h, in_channels=4 * c, out_channels=k, kernel_h=r,
                                               kernel_w=r, weight_sparsity=nm),
              st.integers(4, 14), st.integers(1, 8), st.integers(1, 40), st.integers(1, 3),
              st.sampled_from([None, NMSparsity(2, 4), NMSparsity(1, 4)])),
    st.builds(lambda m, k, n, nm: GemmLayer("gemm", m=m, k=k, n=n, weight_sparsity=nm), st.integers(1, 300),
              st.integers(1, 600), st.integers(1, 300), st.sampled_from([None, NMSparsity(2, 4), NMSparsity(1, 2)])),
)


@settings(max_examples=40, deadline=None)
@given(layer=layer_strategy, config=st.sampled_from(["ampere_a100", "ampere_a100_dense", "ampere_a100_int8"]))
def test_conservation_on_generated_layers(layer, config):
    arch = load_arch(config)
    network = Network("n", (layer,))
    check_laws(arch, network, simulate(arch, network))


@pytest.mark.parametrize("path", AMPERE_CONFIGS, ids=lambda p: p.stem)
def test_every_ampere_config_runs_with_conservation(path):
    arch = load_arch(path)
    network = Network("tiny", (ConvLayer("c", in_h=12, in_w=12, in_channels=8, out_channels=16, kernel_h=3, kernel_w=3,
                                         pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, weight_sparsity=NMSparsity(2, 4)),
                               GemmLayer("fc", m=1, k=256, n=10)))
    check_laws(arch, network, simulate(arch, network))


def test_same_inputs_same_result_bit_for_bit():
    arch = load_arch("ampere_a100")
    network = Network("n", (GemmLayer("g", m=64, k=96, n=40, weight_sparsity=NMSparsity(2, 4)),))
    first, second = simulate(arch, network).layers_frame(), simulate(arch, network).layers_frame()
    assert first.equals(second)


def test_sparse_layer_moves_fewer_weight_bytes_and_less_energy():
    layer = GemmLayer("g", m=256, k=1024, n=1024, weight_sparsity=NMSparsity(2, 4))
    sparse = simulate(load_arch("ampere_a100"), Network("n", (layer,)))
    dense = simulate(load_arch("ampere_a100_dense"), Network("n", (layer,)))
    assert sparse.layers[0].macs_issued * 2 == dense.layers[0].macs_issued == layer.macs
    assert sparse.layers[0].dram_read_bytes < dense.layers[0].dram_read_bytes
    assert sparse.energy[0].total_pj < dense.energy[0].total_pj
    assert "operand_select" in sparse.energy[0].by_component_pj
    assert sparse.layers[0].operand_hashes == dense.layers[0].operand_hashes != {}
