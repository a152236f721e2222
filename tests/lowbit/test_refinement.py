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


def check_laws(layer, result, bandwidth=16.0):
    assert result.macs_issued + result.metrics["macs_skipped"] == result.macs_dense == layer.macs
    assert result.cycles >= math.ceil(result.macs_issued / result.peak_macs_per_cycle)
    assert result.cycles == result.compute_cycles + result.stall_cycles and result.stall_cycles > 0
    dram_bytes = result.dram_read_bytes + result.dram_write_bytes
    assert result.cycles >= result.metrics["dram_busy_cycles"] >= math.floor(dram_bytes / bandwidth)
    assert result.dram_write_bytes == math.ceil(layer.output_elements * result.metrics["output_bits"] / 8)


def test_binary_worked_example():
    """m = 3 rows, k = 100 (2 words of 64), n = 5 columns on 2 PEs: passes of 2, 2, 1 columns, each
    PE busy 3 x 2 = 6 cycles; drain 1 + log2(64) + 1 (scale) = 8; binarizing 300 values at 64 per
    cycle: 5 cycles. Total 5 + 3 x 6 + 3 x 8 = 47, and 6 waiting on DRAM (the next test)."""
    arch = small(precision="binary", pes=2)
    plan, c = FAMILY.counters(arch, GemmLayer("g", m=3, k=100, n=5))
    assert (c.cycles, c.binarize_cycles, c.compute_cycles, c.drain_cycles, c.passes) == (47 + 6, 5, 18, 24, 3)
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
    assert result.peak_macs_per_cycle == 2 * 64 and result.metrics["passes"] == 3


def test_binary_worked_example_with_memory():
    """The example above with its DRAM traffic at 16 B / cycle: the input is 3 rows x 2 packed words
    (384 bits, fits the buffer); pass weights 2 x 128, 2 x 128, 128 bits; outputs 1 bit each (6, 6, 3).
    Load of pass 0 (640 bits = 80 B): 5 cycles, then binarize 5; steps max(6 + 8, DRAM): pass 1's
    load 256 bits (2 cycles), pass 2's load + pass 0's outputs 134 bits (2), pass 1's outputs (1);
    write-back of the last 3 bits: 1 cycle. 5 + 5 + 3 x 14 + 1 = 53."""
    plan, c = FAMILY.counters(small(precision="binary", pes=2), GemmLayer("g", m=3, k=100, n=5))
    assert (c.cycles, c.memory_stall_cycles, c.dram_busy_cycles) == (53, 6, 5 + 2 + 2 + 1 + 1)
    assert (c.dram_read_bits, c.dram_write_bits) == (640 + 384, 15)
    assert (c.weight_buffer_write_bits, c.input_buffer_write_bits) == (640, 384)
    assert c.output_buffer_write_bits == c.output_buffer_read_bits == 15
    assert reference(plan) == c
    result = account(plan, c)
    assert (result.dram_read_bytes, result.dram_write_bytes) == (128, 2)
    assert (result.sram_read_bytes, result.sram_write_bytes) == ((640 + 1152 + 15) // 8 + 1, (1024 + 15) // 8 + 1)
    assert (result.compute_cycles, result.stall_cycles) == (47, 6)
    actions = set(result.actions)
    assert ActionCount("dram", "dram", "read", 32, 32) in actions          # 1024 bits
    assert ActionCount("dram", "dram", "write", 1, 32) in actions          # 15 bits
    assert ActionCount("weight_buffer", "sram", "write", 10, 64, 64 * 1024) in actions
    assert ActionCount("input_buffer", "sram", "write", 6, 64, 64 * 1024) in actions
    assert ActionCount("output_buffer", "sram", "write", 1, 64, 64 * 1024) in actions
    assert ActionCount("output_buffer", "sram", "read", 1, 64, 64 * 1024) in actions


def test_narrow_dram_stretches_the_steps_and_a_small_buffer_reloads_the_input():
    """1 B / cycle: load 80, binarize 5, steps max(14, 32), max(14, ceil(134 / 8) = 17), max(14, 1),
    write-back 1: 149 cycles, 102 of them waiting. A 16-byte input buffer cannot hold the 384-bit
    input: every pass reloads it (loads 640, 640, 512 bits)."""
    plan, c = FAMILY.counters(small(precision="binary", pes=2, dram_bandwidth=1), GemmLayer("g", m=3, k=100, n=5))
    assert (c.cycles, c.memory_stall_cycles) == (149, 102) and reference(plan) == c
    plan, c = FAMILY.counters(small(precision="binary", pes=2, input_buffer=16), GemmLayer("g", m=3, k=100, n=5))
    assert not plan.input_fits and c.input_buffer_write_bits == 3 * 384 and c.dram_read_bits == 640 + 3 * 384
    assert reference(plan) == c
    latency = load_arch("lowbit", {"lowbit.pes": 2, "dram.latency": 10})
    plan, c = FAMILY.counters(latency, GemmLayer("g", m=3, k=100, n=5))
    assert c.cycles == 53 + 10 + 10 and reference(plan) == c    # the first load and the write-back wait 10 more


def test_layer_activation_bits_sets_the_stored_input_width():
    """An fp32 output read by a binary layer: 32 bits a value in DRAM (the binarizer packs it on chip)."""
    layer = GemmLayer("g", m=3, k=100, n=5, activation_bits=32)
    plan, c = FAMILY.counters(small(precision="binary", pes=2), layer)
    assert c.input_buffer_write_bits == 3 * 100 * 32 and reference(plan) == c


def test_xnor_net_beta_adds_a_scale_stage_and_sums_every_input():
    """activation_scale: drain 9 per pass instead of 8, every input's |x| summed, two scalings an output."""
    plan, c = FAMILY.counters(small(precision="binary", pes=2, activation_scale=True), GemmLayer("g", m=3, k=100, n=5))
    assert (c.cycles, c.drain_cycles) == (53 + 3, 27) and c.beta_adds == 300 and c.scale_mults == 30
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
    assert (c.compute_cycles, c.drain_cycles, c.cycles) == (24, 6, 30 + 3 + 1)   # first load 36 B, last write 4 B
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


@pytest.mark.parametrize("buffer_bytes, fits", [(48, True), (47, False)])
def test_input_that_exactly_fills_the_buffer_is_loaded_once(buffer_bytes, fits):
    """The worked example's input is 3 rows x 2 words of 64 bits = 384 bits = 48 bytes."""
    plan, c = FAMILY.counters(small(precision="binary", pes=2, input_buffer=buffer_bytes), GemmLayer("g", m=3, k=100, n=5))
    assert plan.input_fits == fits and c.input_buffer_write_bits == (384 if fits else 3 * 384)


def test_a_single_pass_waits_only_for_its_load_and_write_back():
    """One pass (2 columns on 2 PEs): no burst during the pass even with a DRAM latency of 10.
    Load 2 x 128 + 384 bits (80 B): 5 + 10; binarize 5; pass 6 + 8; write 6 bits: 1 + 10."""
    arch = load_arch("lowbit", {"lowbit.pes": 2, "dram.latency": 10})
    plan, c = FAMILY.counters(arch, GemmLayer("g", m=3, k=100, n=2))
    assert (c.cycles, c.memory_stall_cycles, c.dram_busy_cycles) == (15 + 5 + 14 + 11, 26, 6)
    assert reference(plan) == c
    longer = load_arch("lowbit", {"lowbit.pes": 2, "dram.latency": 30})   # longer than the pass: still no burst
    plan, c = FAMILY.counters(longer, GemmLayer("g", m=3, k=100, n=2))
    assert c.cycles == 35 + 5 + 14 + 31 and reference(plan) == c
