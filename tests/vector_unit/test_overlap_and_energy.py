"""The serial / overlapped switch and the vector layer's result: cycles added to the step,
energy = the sum of its parts, the per-op breakdown adds up to the vector layers."""
from __future__ import annotations

import pytest

from accel_sim import load_arch, simulate
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.pipeline.report.vector_breakdown import vector_breakdown
from accel_sim.foundations.workload.layer import GemmLayer, Network, VectorLayer

GEMM = GemmLayer("proj", m=16, k=256, n=256)
NORM = VectorLayer("norm", "rmsnorm", rows=16, width=256)
SOFTMAX = VectorLayer("probs", "softmax", rows=64, width=512)


def run(overlap: str, layers=(GEMM, NORM, SOFTMAX)):
    arch = load_arch("tpu_like_128x128_ws", {"vector_unit.overlap": overlap})
    return simulate(arch, Network("n", layers))


def test_serial_adds_every_busy_cycle_and_overlapped_hides_under_the_matrix_layer():
    serial, overlapped = run("serial"), run("overlapped")
    gemm_cycles = serial.layers[0].cycles
    busy = [r.metrics["vector_busy_cycles"] for r in serial.layers[1:]]
    assert [r.cycles for r in serial.layers[1:]] == busy
    hidden = [r.metrics["vector_hidden_cycles"] for r in overlapped.layers[1:]]
    assert sum(hidden) == min(gemm_cycles, sum(busy))          # one budget: the GEMM's cycles, used in order
    assert hidden[0] == min(busy[0], gemm_cycles)
    assert [r.cycles for r in overlapped.layers[1:]] == [b - h for b, h in zip(busy, hidden)]
    assert overlapped.energy == serial.energy                 # overlap moves time, not work


def test_a_vector_layer_first_has_nothing_to_hide_under():
    first = run("overlapped", (NORM, GEMM)).layers[0]
    assert first.metrics["vector_hidden_cycles"] == 0 and first.cycles == first.metrics["vector_busy_cycles"]


def test_energy_is_the_sum_of_its_actions_and_the_breakdown_adds_up():
    result = run("serial")
    table = load_energy_table(result.arch.energy_table)
    for layer, energy in zip(result.layers[1:], result.energy[1:]):
        assert energy.total_pj == pytest.approx(sum(table.energy_pj(a) for a in layer.actions))
        assert layer.macs_dense == 0 and layer.dram_read_bytes == 0 and layer.utilization == 0.0
    rows = {row["op"]: row for row in vector_breakdown(result)}
    assert set(rows) == {"rmsnorm", "softmax"}
    assert rows["softmax"]["energy_pj"] == pytest.approx(result.energy[2].total_pj)
    assert rows["softmax"]["elements"] == 64 * 512
    summary = result.summary_row()
    assert summary["cycles"] == sum(r.cycles for r in result.layers)
    assert summary["utilization"] == pytest.approx(GEMM.macs / (summary["cycles"] * 128 * 128))
