"""The paper's 4-PE example (Figs. 2 and 3): the encoding, the cycle-by-cycle run and its trace."""
import dataclasses
import json

import numpy as np

from accel_sim.cli.main import main
from accel_sim.pipeline.catalog import load_arch
from accel_sim.models.eie import functional
from accel_sim.models.eie.family import FAMILY
from accel_sim.models.eie.plan.slices import slice_stats
from accel_sim.models.eie.reference import run as reference_run
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.pipeline.trace.eie import BROADCAST_TRACK, cycle_records
from accel_sim.foundations.workload.layer import GemmLayer, OperandSource
from accel_sim.foundations.workload.loader import load_workload


def example():
    arch = load_arch("eie_4pe_example")
    layer = load_workload("eie_4pe_example").layers[0]
    return arch, layer, FAMILY.plan(arch, layer)


def test_pe0_slice_encodes_as_in_figure_2():
    _, _, plan = example()
    stored = plan.stored_weights()
    pe0 = stored.pes[0]
    assert pe0.rel_index.tolist() == [0, 1, 0, 1, 0, 2, 0, 0, 0, 2, 0, 2, 0]   # brief: relative row index
    assert pe0.col_ptr.tolist() == [0, 3, 4, 6, 6, 8, 10, 11, 13]              # brief: column pointer
    assert stored.codebook.size == 16 and stored.codebook[0] == 0
    # the fast path's slice statistics are the same encoding
    np.testing.assert_array_equal(plan.slices.entries.T, [np.diff(pe.col_ptr) for pe in stored.pes])


def test_cycle_by_cycle_run_of_the_example():
    arch, layer, plan = example()
    run = reference_run(plan, record=True)
    (vector,) = run.vectors
    assert plan.broadcast_columns(0).tolist() == [0, 2, 3, 4, 5, 7]        # the non-zero activations
    assert [b.cycle for b in vector.broadcasts] == [1, 2, 3, 5, 8, 10]      # depth-2 FIFOs hold broadcasts back
    assert vector.cycles == run.counters.compute_cycles == 16
    log = cycle_records(vector, arch.eie.n_pes)
    pe0 = [(r.cycle, r.pe[0].column, r.pe[0].row) for r in log if r.pe[0] is not None and r.pe[0].kind == "mac"]
    # PE0 works through its slices of the broadcast columns in order: W0,0 W8,0 W12,0 | W0,2 W12,2 | W0,4 W4,4 | ...
    assert pe0[:7] == [(2, 0, 0), (3, 0, 8), (4, 0, 12), (5, 2, 0), (6, 2, 12), (7, 4, 0), (8, 4, 4)]
    np.testing.assert_array_equal(run.outputs, functional.outputs(plan))
    assert simulate_layer(arch, layer).result.cycles == 16


def test_figure_3_padding_entry_costs_a_cycle():
    column = np.array([0, 0, 1, 2] + [0] * 18 + [3], dtype=np.float32)       # brief: v = [1, 2, 0, 3], z = [2, 0, 15, 2]
    layer = GemmLayer("fig3", m=1, k=1, n=column.size, weight_density=3 / column.size)
    arch = load_arch("eie", {"eie.n_pes": 1})
    plan = FAMILY.plan(arch, layer)
    plan = dataclasses.replace(plan, layer=layer,
                               operands=type(plan.operands)(column.reshape(1, -1), np.ones((1, 1), np.float32), "w", "x"),
                               activations=np.ones((1, 1), dtype=np.int64),
                               slices=slice_stats(column.reshape(1, -1) != 0, 1, 15))
    counters = FAMILY.fast(plan)
    assert counters.pe_entries == (4,) and counters.padding_entries == 1 and sum(counters.pe_entries) - 1 == 3
    assert counters.compute_cycles == arch.eie.lnzd_latency + 1 + 4


def test_trace_files_show_every_broadcast_and_pe_cycle(tmp_path):
    assert main(["trace", "--arch", "eie_4pe_example", "--workload", "eie_4pe_example", "--out", str(tmp_path)]) == 0
    doc = json.loads((tmp_path / "trace.json").read_text())
    events = doc["traceEvents"]
    names = {e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    assert names == {BROADCAST_TRACK, "PE 0", "PE 1", "PE 2", "PE 3"}
    tid = {e["args"]["name"]: e["tid"] for e in events if e.get("name") == "thread_name"}
    broadcasts = [e for e in events if e["ph"] == "X" and e["tid"] == tid[BROADCAST_TRACK]]
    assert [(e["ts"], e["name"]) for e in broadcasts] == [(1, "a0"), (2, "a2"), (3, "a3"), (5, "a4"), (8, "a5"),
                                                          (10, "a7")]
    pe0 = [e for e in events if e["ph"] == "X" and e["tid"] == tid["PE 0"]]
    assert [e["ts"] for e in pe0][:3] == [2, 3, 4] and pe0[0]["name"] == "c0 r0"
    counters = {e["name"] for e in events if e["ph"] == "C"}
    assert counters == {f"FIFO PE {p}" for p in range(4)}
    table = (tmp_path / "cycles.txt").read_text().splitlines()
    rows = [line for line in table if line[:1].isdigit()]
    assert len(rows) == 16
    assert rows[2].split()[:3] == ["2", "a2=4096", "c0"]


def test_trace_of_a_large_layer_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr("accel_sim.pipeline.trace.eie.MAX_TRACE_CYCLES", 10)  # the example takes 16 cycles
    assert main(["trace", "--arch", "eie_4pe_example", "--workload", "eie_4pe_example",
                 "--out", str(tmp_path / "t")]) == 2
    assert not (tmp_path / "t").exists()
    assert "teaching trace is limited" in capsys.readouterr().err


def test_unknown_trace_layer(capsys, tmp_path):
    assert main(["trace", "--arch", "eie_4pe_example", "--workload", "eie_4pe_example", "--out", str(tmp_path),
                 "--layer", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no layer 'nope'" in err


def test_operand_source_patterns_are_accepted():
    layer = GemmLayer("s", m=1, k=16, n=16, weight_density=0.25, input_density=0.5,
                      operands=OperandSource(weight_pattern="block", activation_pattern="clustered"))
    assert FAMILY.layer_result(load_arch("eie", {"eie.n_pes": 4}), layer).macs_issued > 0
