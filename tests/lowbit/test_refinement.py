"""Low-bit array refinement: fast path == SimPy reference field by field on generated layers of
every precision, worked examples derived by hand (a bug in the shared plan fails here too),
accounting against hand-counted actions, conservation laws, the max_cycles guard."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch
from accel_sim.foundations.errors import InputError, SimulationError
from accel_sim.models.lowbit.accounting import account
from accel_sim.models.lowbit.family import FAMILY
from accel_sim.models.lowbit.reference import reference
from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.workload import ConvLayer, GemmLayer

PRECISIONS = ["binary", "ternary", "log2", "int8", "int4", "fp32"]


def small(**overrides):
    return load_arch("lowbit", {f"lowbit.{k}": v for k, v in overrides.items()})


layers = st.one_of(
    st.builds(lambda m, k, n, d: GemmLayer("g", m=m, k=k, n=n, weight_density=d), st.integers(1, 12),
              st.integers(1, 150), st.integers(1, 40), st.sampled_from([1.0, 0.5, 0.1])),
    st.builds(lambda h, c, k, r, g, s, p: ConvLayer("c", in_h=h, in_w=h, in_channels=c * g, out_channels=k * g,
                                                    kernel_h=r, kernel_w=r, groups=g, stride_h=s, stride_w=s,
                                                    pad_top=p, pad_bottom=p, pad_left=p, pad_right=p),
              st.integers(3, 6), st.integers(1, 4), st.integers(1, 6), st.integers(1, 3), st.integers(1, 3),
              st.integers(1, 2), st.integers(0, 1)),
)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(layer=layers, precision=st.sampled_from(PRECISIONS), pes=st.integers(1, 9),
       word_bits=st.sampled_from([8, 16, 32, 64]), add_lanes=st.integers(1, 8), mult_lanes=st.integers(1, 8),
       fp_lanes=st.integers(1, 3), binarizer=st.integers(1, 70), beta=st.booleans())
def test_fast_path_equals_reference_field_by_field(layer, precision, pes, word_bits, add_lanes, mult_lanes, fp_lanes,
                                                   binarizer, beta):
    arch = small(precision=precision, pes=pes, word_bits=word_bits, add_lanes=add_lanes, mult_lanes=mult_lanes,
                 fp_lanes=fp_lanes, binarizer_width=binarizer, activation_scale=beta)
    assert FAMILY.refinement(arch, layer) == []
    check_laws(layer, FAMILY.layer_result(arch, layer))


def check_laws(layer, result):
    assert result.macs_issued + result.metrics["macs_skipped"] == result.macs_dense == layer.macs
    assert result.cycles >= math.ceil(result.macs_issued / result.peak_macs_per_cycle)
    assert result.cycles == result.compute_cycles and result.stall_cycles == 0


def test_binary_worked_example():
    """m = 3 rows, k = 100 (2 words of 64), n = 5 columns on 2 PEs: passes of 2, 2, 1 columns, each
    PE busy 3 x 2 = 6 cycles; drain 1 + log2(64) + 1 (scale) = 8; binarizing 300 values at 64 per
    cycle: 5 cycles. Total 5 + 3 x 6 + 3 x 8 = 47."""
    arch = small(precision="binary", pes=2)
    plan, c = FAMILY.counters(arch, GemmLayer("g", m=3, k=100, n=5))
    assert (c.cycles, c.binarize_cycles, c.compute_cycles, c.drain_cycles, c.passes) == (47, 5, 18, 24, 3)
    assert c.idle_pe_cycles == 6                   # the last pass has one empty PE for 6 cycles
    assert c.xnor_words == 3 * 2 * 5 and c.macs_issued == 3 * 100 * 5 and c.scale_mults == 15
    assert c.binarized_words == 3 * 2 and c.weight_read_bits == 5 * 128 and c.input_read_bits == 3 * 3 * 128
    assert reference(plan) == c
    actions = set(account(plan, c).actions)
    assert ActionCount("datapath", "xnor", "op", 30, 64) in actions
    assert ActionCount("datapath", "popcount", "op", 30, 64) in actions
    assert ActionCount("scale", "mult_fp", "op", 15, 32) in actions
    assert ActionCount("binarizer", "register_file", "write", 6, 64) in actions
    assert c.beta_adds == 0
    assert ActionCount("weight_buffer", "sram", "read", 10, 64, 64 * 1024) in actions     # 640 bits
    assert ActionCount("input_buffer", "sram", "read", 18, 64, 64 * 1024) in actions      # 1152 bits
    result = account(plan, c)
    assert (result.sram_read_bytes, result.sram_write_bytes) == ((640 + 1152) // 8, 0)
    assert (result.dram_read_bytes, result.dram_write_bytes, result.stall_cycles) == (0, 0, 0)
    assert result.peak_macs_per_cycle == 2 * 64 and result.metrics["passes"] == 3


def test_xnor_net_beta_adds_a_scale_stage_and_sums_every_input():
    """activation_scale: drain 9 per pass instead of 8, every input's |x| summed, two scalings an output."""
    plan, c = FAMILY.counters(small(precision="binary", pes=2, activation_scale=True), GemmLayer("g", m=3, k=100, n=5))
    assert (c.cycles, c.drain_cycles) == (47 + 3, 27) and c.beta_adds == 300 and c.scale_mults == 30
    assert reference(plan) == c
    actions = set(account(plan, c).actions)
    assert ActionCount("binarizer", "add_fp", "op", 300, 32) in actions
    assert ActionCount("scale", "mult_fp", "op", 30, 32) in actions


def test_ternary_skips_zero_weights_and_waits_for_the_busiest_pe():
    """Ternary columns with 7, 0 and 3 non-zero weights on 2 PEs with 2 adders: a row costs
    ceil(7/2) = 4, 0 and 2 cycles; 4 rows: passes of max(16, 0) and 8 cycles; drain 1 + 1 + 1."""
    weights = np.zeros((8, 3), dtype=np.float32)
    weights[:7, 0], weights[:3, 2] = 1.0, -1.0
    import tempfile
    import os
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "w.npz")
    np.savez(path, weights=weights)
    from accel_sim.foundations.workload.layer import OperandSource
    layer = GemmLayer("t", m=4, k=8, n=3, operands=OperandSource(payload=path), precision="ternary")
    plan, c = FAMILY.counters(small(pes=2, add_lanes=2), layer)
    assert plan.column_elements.tolist() == [7, 0, 3]
    assert (c.compute_cycles, c.drain_cycles, c.cycles) == (24, 6, 30)
    assert c.idle_pe_cycles == 16 + 8              # the empty column's PE, then the missing PE
    assert c.adds == 4 * 10 and c.macs_skipped == 4 * (24 - 10)
    assert reference(plan) == c


def test_layer_precision_overrides_the_configured_one():
    layer = GemmLayer("fc", m=2, k=64, n=4, precision="fp32")
    plan, c = FAMILY.counters(small(precision="binary", pes=4, fp_lanes=1), layer)
    assert plan.precision == "fp32" and c.fp_macs == 2 * 64 * 4 and c.xnor_words == 0
    assert c.compute_cycles == 2 * 64


def test_precision_the_array_lacks_is_refused():
    with pytest.raises(InputError, match="no fp16 datapath"):
        FAMILY.plan(small(), GemmLayer("g", m=1, k=4, n=4, precision="fp16"))
    with pytest.raises(InputError, match="wider than lowbit.multiplier_bits"):
        FAMILY.plan(small(), GemmLayer("g", m=1, k=4, n=4, precision="int16"))


@pytest.mark.parametrize("path", ["fast", "reference"])
def test_max_cycles_guard(path):
    arch, layer = small(pes=1), GemmLayer("g", m=8, k=640, n=8)
    with pytest.raises(SimulationError):
        FAMILY.layer_result(arch, layer, reference=path == "reference", max_cycles=20)


@pytest.mark.parametrize("precision, depth", [
    ("binary", 1 + 6 + 1),      # XNOR, popcount tree of 64 bits, alpha
    ("ternary", 1 + 4 + 1),     # sign select, 16-adder tree, alpha
    ("log2", 1 + 4),            # shift, 16-adder tree, no scale stage (powers of two)
    ("int8", 1 + 3),            # multiply, 8-product tree
    ("fp32", 1 + 0),            # one FMA
])
def test_drain_of_every_datapath(precision, depth):
    plan, c = FAMILY.counters(small(precision=precision, pes=1), GemmLayer("g", m=1, k=8, n=2))
    assert plan.pipeline_depth == depth and c.drain_cycles == 2 * depth and c.passes == 2
