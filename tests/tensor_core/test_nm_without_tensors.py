"""A 2:4 LLM step on the tensor core never draws its weights or inputs.

The tensor-core family's counters depend on the layer's shape and declared N:M structure only; weights
generated to a declared pattern were once drawn (and checked) for all 7 B weights of a Llama-2-7B step,
567 s and 1.5 GB for one decode step. ``benchmarks/bench_llm_2to4.py`` measures the whole CLI path
against the dense one; this test fails as soon as any tensor of a generated 2:4 layer is allocated.
"""
import pytest

import accel_sim.foundations.workload.operands as operands
from accel_sim import load_arch, simulate
from accel_sim.foundations.workload.layer import Network
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.foundations.workload.operands import _cached_operands
from accel_sim.foundations.config.loader import REPO_ROOT
from accel_sim.foundations.workload.llm.compression import Compression


def _one_block_2to4_decode() -> Network:
    import dataclasses
    config = read_hf_config(REPO_ROOT / "workloads" / "llm" / "configs" / "llama_2_7b.json")
    config = dataclasses.replace(config, layers=1)
    return transformer_network(config, InferenceStep("decode", 2048, 1), Compression.parse("2:4"))


def test_llama_2to4_decode_block_allocates_no_operand(monkeypatch):
    monkeypatch.setattr(operands, "_generated_weights", lambda *a: pytest.fail("2:4 weights drawn"))
    monkeypatch.setattr(operands, "synthetic_activations", lambda *a, **k: pytest.fail("inputs drawn"))
    _cached_operands.cache_clear()
    network = _one_block_2to4_decode()
    assert any(getattr(layer, "weight_sparsity", None) is not None for layer in network.layers)
    run = simulate(load_arch("ampere_a100"), network)
    sparse = [r for r in run.layers if r.metrics.get("sparse") == 1.0]
    assert sparse, "no layer ran on the sparse tensor-core path"
    _cached_operands.cache_clear()
