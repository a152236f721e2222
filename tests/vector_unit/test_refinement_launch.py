"""Vector kernels' launch gap (``vector_unit.kernel_launch_cycles``, ``VectorLayer.launches``): fast == reference
on every counter with a gap; a two-block Llama decode step counted by hand (fused: one launch per run of vector
layers between matrix kernels; unfused: one per vector layer); conservation (cycles >= launches x gap)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from accel_sim.foundations.contract import counter_differences
from accel_sim.foundations.errors import SimulationError
from accel_sim.foundations.workload.layer import VECTOR_OPS, VectorLayer
from accel_sim.foundations.workload.llm.generator import InferenceStep, attention_layers, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.models.vector_unit.accounting import account
from accel_sim.models.vector_unit.fast import fast
from accel_sim.models.vector_unit.plan import plan
from accel_sim.models.vector_unit.reference import reference
from accel_sim.models.vector_unit.spec import VectorUnitSpec
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import simulate

CONFIGS = Path(__file__).resolve().parents[2] / "workloads" / "llm" / "configs"
LLAMA_2_TWO_BLOCKS = dataclasses.replace(read_hf_config(CONFIGS / "llama_2_7b.json"), layers=2)
A100_GAP = 1886   # ampere_a100.yaml: the measured back-to-back minimal kernel under a CUDA graph


def launch_cases(count: int = 16, seed: int = 23):
    rng = np.random.default_rng(seed)
    for index in range(count):
        spec = VectorUnitSpec(units=int(rng.integers(1, 4)), lanes=int(rng.choice([4, 16, 64])),
                              special_per_cycle=int(rng.choice([1, 4, 16])),
                              sram_bandwidth=float(rng.choice([8, 64, 128])), fifo_depth=int(rng.integers(1, 3)),
                              kernel_launch_cycles=int(rng.choice([0, 1, 37, 1886])))
        op = VECTOR_OPS[index % len(VECTOR_OPS)]
        yield spec, VectorLayer(f"k{index}", op, rows=int(rng.integers(1, 6)), width=2 * int(rng.integers(1, 20)),
                                launches=bool(index % 3))


CASES = list(launch_cases())


@pytest.mark.parametrize("spec,layer", CASES, ids=[f"{layer.name}_{layer.op}" for _, layer in CASES])
def test_fast_equals_reference_with_a_launch_gap(spec, layer):
    work = plan(spec, layer)
    counters = fast(work)
    assert counter_differences(counters, reference(work)) == []
    assert counters.launch_cycles == (spec.kernel_launch_cycles if layer.launches else 0)
    result = account(work, counters)
    assert result.cycles == counters.launch_cycles + counters.busy_cycles >= counters.launch_cycles
    assert result.stall_cycles == counters.launch_cycles and result.compute_cycles == counters.busy_cycles


def test_the_gap_counts_against_max_cycles_on_both_paths():
    spec = VectorUnitSpec(units=2, lanes=8, kernel_launch_cycles=100)
    work = plan(spec, VectorLayer("r", "residual_add", rows=1, width=64))
    total = fast(work).launch_cycles + fast(work).busy_cycles
    assert fast(work, max_cycles=total).busy_cycles == total - 100
    for path in (fast, reference):
        with pytest.raises(SimulationError):
            path(work, max_cycles=total - 1)


def test_a_launch_is_never_hidden_under_matrix_work():
    spec = VectorUnitSpec(lanes=8, overlap="overlapped", kernel_launch_cycles=50)
    work = plan(spec, VectorLayer("g", "gelu", rows=2, width=16))
    counters = fast(work)
    result = account(work, counters, hidden_cycles=counters.busy_cycles)
    assert result.cycles == result.stall_cycles == 50 and result.compute_cycles == 0


def test_one_residual_add_on_the_a100_by_hand():
    """4096 elements over 108 SMs: 100 take 38, 8 take 37, each one vector of 64 lanes. A vector reads 2 operands
    and writes 1 of 16 bits over 64 lanes: 3 x 64 x 2 B = 384 B at 128 B / cycle = 3 cycles; 1 add = 1 cycle;
    busy 3 + 1 = 4. With its launch: 1886 + 4 = 1890; fused into the next kernel: 4."""
    arch = load_arch("ampere_a100")
    for launches, cycles in ((True, 1890), (False, 4)):
        work = plan(arch.vector_unit, VectorLayer("add", "residual_add", rows=1, width=4096, launches=launches))
        assert account(work, fast(work)).cycles == cycles


def _vector_runs(step: InferenceStep, arch_name: str = "ampere_a100"):
    network = transformer_network(LLAMA_2_TWO_BLOCKS, step)
    run = simulate(load_arch(arch_name), network)
    pairs = [(layer, result) for layer, result in zip(network.layers, run.layers) if isinstance(layer, VectorLayer)]
    return [layer for layer, _ in pairs], [result for _, result in pairs]


def test_two_block_decode_step_by_hand():
    """Llama-2 (pre-norm, rotary, SwiGLU), 2 blocks, decode, score / softmax / context attention. Per block 7 vector
    layers, then final_norm: 15. Fused, the runs between matrix kernels are: l00 attn_norm; per block rotary,
    softmax, attn_residual + mlp_norm, mlp_act, mlp_residual + the next attn_norm (or final_norm): 1 + 2 x 5 = 11
    launches, each charged to its run's last layer. Unfused: 15. Each costs 1886 cycles on the A100."""
    fused, fused_results = _vector_runs(InferenceStep("decode", 105))
    eager, eager_results = _vector_runs(InferenceStep("decode", 105, fused_elementwise=False))
    assert len(fused) == len(eager) == 15
    assert [layer.name for layer in fused if layer.launches] == [
        "l0_attn_norm", "l0_attn_rotary", "l0_attn_softmax", "l0_mlp_norm", "l0_mlp_act",
        "l1_attn_norm", "l1_attn_rotary", "l1_attn_softmax", "l1_mlp_norm", "l1_mlp_act", "final_norm"]
    assert all(layer.launches for layer in eager)
    assert sum(r.stall_cycles for r in fused_results) == 11 * A100_GAP == 20_746
    assert sum(r.stall_cycles for r in eager_results) == 15 * A100_GAP == 28_290
    busy = [r.compute_cycles for r in fused_results]
    assert busy == [r.compute_cycles for r in eager_results]       # the same work, fewer launches
    assert sum(r.cycles for r in eager_results) - sum(r.cycles for r in fused_results) == 4 * A100_GAP


def test_conservation_cycles_cover_launches_times_the_gap():
    for arch_name in ("ampere_a100", "hopper_h100", "tpu_like_128x128_ws"):
        arch = load_arch(arch_name)
        layers, results = _vector_runs(InferenceStep("decode", 64, batch=2), arch_name)
        gap = arch.vector_unit.kernel_launch_cycles
        launches = sum(layer.launches for layer in layers)
        assert sum(r.cycles for r in results) >= launches * gap
        assert sum(r.stall_cycles for r in results) == launches * gap
        assert all(r.stall_cycles == (gap if layer.launches else 0) for layer, r in zip(layers, results))


def test_a_fused_attention_kernels_softmax_launches_nothing():
    fused = attention_layers(LLAMA_2_TWO_BLOCKS, "l0_", batch=2, tokens=1, span=64, fused=True)
    unfused = attention_layers(LLAMA_2_TWO_BLOCKS, "l0_", batch=2, tokens=1, span=64)
    assert [layer.launches for layer in fused if isinstance(layer, VectorLayer)] == [False]
    assert [layer.launches for layer in unfused if isinstance(layer, VectorLayer)] == [True]
    step = InferenceStep("decode", 64, attention="fused")
    layers, _ = _vector_runs(step)
    assert sum(layer.launches for layer in layers) == 1 + 2 * 4   # softmax inside attn_decode
