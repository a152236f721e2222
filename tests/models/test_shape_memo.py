"""Same shape, same device = same answer: a layer whose family counts from its shape alone
(``Family.counts_from_shape``), or a vector layer, runs once per process and later layers of that shape
take its result under their own name and operand hashes (``accel_sim.pipeline.simulate.SHAPE_RUNS``).
Every run here must equal, field by field, the same run with the memo holding nothing."""
from dataclasses import replace

import pytest

from accel_sim import load_arch, load_workload, simulate
from accel_sim.foundations.workload.layer import GemmLayer, Network, OperandSource
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.foundations.config.loader import REPO_ROOT
from accel_sim.pipeline import simulate as simulate_module
from accel_sim.pipeline.catalog import FAMILIES


def _without_memo(arch, network):
    memo = simulate_module.SHAPE_RUNS
    simulate_module.SHAPE_RUNS = type(memo)(capacity=0)
    try:
        return simulate(arch, network)
    finally:
        simulate_module.SHAPE_RUNS = memo


def _assert_same(a, b):
    assert a.layers == b.layers
    assert a.energy == b.energy and a.static == b.static


def _llm(name: str, phase: str, context: int, batch: int) -> Network:
    model = read_hf_config(REPO_ROOT / "workloads" / "llm" / "configs" / f"{name}.json")
    return transformer_network(model, InferenceStep(phase, context, batch))


CASES = [
    ("ampere_a100", lambda: _llm("llama_2_7b", "decode", 512, 2)),
    ("ampere_a100_int8", lambda: _llm("llama_2_7b", "decode", 256, 1)),
    ("ampere_a100", lambda: _llm("gpt2", "prefill", 128, 1)),
    ("tpu_like_128x128_ws", lambda: _llm("gpt2", "decode", 128, 1)),
    ("tpu_like_128x128_ws_nm", lambda: load_workload("resnet18")),
    ("ampere_a100", lambda: load_workload("resnet18")),
    ("dlu", lambda: _llm("gpt2", "decode", 128, 2)),       # batched attention GEMMs, run instance by instance
    ("dlu", lambda: load_workload("resnet18")),
]


@pytest.mark.parametrize("arch_name, network", CASES, ids=[f"{a}-{i}" for i, (a, _) in enumerate(CASES)])
def test_a_run_with_the_memo_equals_the_run_without(arch_name, network):
    arch, network = load_arch(arch_name), network()
    first = simulate(arch, network)          # fills the memo (or takes entries of earlier tests)
    again = simulate(arch, network)          # every layer from the memo
    _assert_same(first, again)
    _assert_same(again, _without_memo(arch, network))


def test_layers_of_one_shape_differ_only_in_name_and_operand_hashes():
    arch = load_arch("ampere_a100")
    layer = GemmLayer(name="a", m=8, k=512, n=512, weight_density=0.5, operands=OperandSource(seed=3))
    network = Network(name="two", layers=(layer, replace(layer, name="b")))
    a, b = simulate(arch, network).layers
    assert b.layer == "b" and a.operand_hashes and a.operand_hashes != b.operand_hashes
    assert replace(b, layer="a", operand_hashes=a.operand_hashes) == a
    assert _without_memo(arch, network).layers == (a, b)


def test_families_that_read_operand_values_are_not_memoised():
    shape_only = {name for name, family in FAMILIES.items() if family.counts_from_shape}
    assert shape_only == {"dlu", "systolic", "tensor_core"}
