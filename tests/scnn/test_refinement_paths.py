"""Refinement (a): the fast path and the discrete-event reference give the same counters, field
by field, on generated layers drawing every switch of the ``scnn:`` section (designs, F, I, A
beyond the bit-sliced 32 banks, bank mapping, weight order, Kc rule, temporal tiles, channel
chunks, OARAM overflow, FIFO depth, halo / PPU rates, fractional DRAM bandwidth, strides,
conv groups, batch, GEMM layers); and (c) the conservation laws of the counters on such layers.
The generated tests come last: the mutation tool stops at the first failure (``-x``)."""
import dataclasses
import math

import pytest
from hypothesis import given, settings

from accel_sim import load_arch
from accel_sim.foundations.compress import SCNNZeroRun
from accel_sim.foundations.errors import InputError, SimulationError
from accel_sim.foundations.contract import counter_differences
from accel_sim.models.scnn.accounting import account
from accel_sim.models.scnn.family import FAMILY
from accel_sim.models.scnn.fast import pe
from tests.scnn._layers import NO_SHRINK, chunked_case, generated_case, small_case


def agree(arch, layer):
    """(plan, counters) after checking both paths count the same; None: the layer is refused."""
    try:
        plan = FAMILY.plan(arch, layer)
    except InputError:   # accumulators or IARAM too small for this layer: refused, not simulated
        return None
    fast = FAMILY.fast(plan, None)
    assert counter_differences(fast, FAMILY.reference(plan, None)) == [], (layer, arch.scnn)
    return plan, fast


@pytest.mark.parametrize("seed", range(0, 24, 3))
@pytest.mark.parametrize("banks", [48, 64])
@pytest.mark.parametrize("scatter", ["fifo", "serialise"])
def test_more_than_32_banks_run_and_agree(seed, banks, scatter):
    """The fast path's bit-sliced masks hold A <= 32 banks; beyond, it counts bank loads instead (the FIFO
    loops product by product; serialise step by step, never by the bit-sliced rotation classes)."""
    arch, layer = small_case(seed, design="scnn")
    fields = {f"scnn.{f.name}": getattr(arch.scnn, f.name) for f in dataclasses.fields(arch.scnn)}
    arch = load_arch("scnn", {**fields, "scnn.accumulator_banks": banks, "scnn.scatter": scatter})
    plan, counters = agree(arch, layer)
    assert plan.spec.accumulator_banks == banks
    assert counters.products > 0 or layer.input_density * layer.weight_density < 0.1


def test_channel_chunks_agree():
    """Layers whose channels come in chunks, partial sums kept in the OARAM or sent through DRAM."""
    psums = set()
    for seed in (0, 1, 4, 5, 8, 18):
        plan, counters = agree(*chunked_case(seed))
        assert plan.tiling.channel_chunks > 1
        psums.add("OARAM" if counters.psum_oaram_words else "DRAM")
    assert psums == {"OARAM", "DRAM"}


@pytest.mark.parametrize("pairs", [1, 40])
def test_batching_changes_no_count(monkeypatch, pairs):
    """The fast path pads (pass, segment) blocks of steps into numpy batches of at most
    ``MAX_BLOCK_PAIRS`` steps (or one block): batches of one block, or of a few, count the same."""
    cases = [small_case(seed, design="scnn") for seed in (2, 5, 13, 18)]
    expected = [FAMILY.counters(*case)[1] for case in cases]
    monkeypatch.setattr(pe, "MAX_BLOCK_PAIRS", pairs)
    assert [FAMILY.counters(*case)[1] for case in cases] == expected


def test_both_paths_stop_at_max_cycles():
    arch, layer = small_case(1, design="scnn")
    plan, counters = FAMILY.counters(arch, layer)
    cycles = counters.compute_cycles + counters.input_load_stall_cycles + counters.dram_stream_stall_cycles
    for count in (FAMILY.fast, FAMILY.reference):
        assert count(plan, cycles) == counters
        with pytest.raises(SimulationError, match="max_cycles"):
            count(plan, cycles - 1)


MECHANISMS = {"scnn", "scnn_sparse_a", "scnn_sparse_w", "dcnn", "dcnn_opt", "linear", "channel_spread", "rs_then_k",
              "k_then_rs", "max_fit", "fixed", "conv", "gemm", "A=4", "A=64", "temporal tiles", "channel chunks",
              "groups", "conflicts", "load stall", "stream stall", "barrier idle", "halo", "spill", "psums in OARAM",
              "outputs overflow the OARAM", "FIFO overflow", "gated", "stride", "batch"}
DNNSIM_MECHANISMS = {"padded_blocks", "output_tile", "dnnsim_xor", "group_channel", "largest_region_serial",
                     "slot_only", "ignored", "slot_only out-of-plane", "temporal tiles", "stride", "conflicts",
                     "barrier idle", "groups", "scnn_sparse_a", "scnn_sparse_w", "dcnn"}


def mechanisms(arch, layer, plan, c) -> set[str]:
    spec, tiling = arch.scnn, plan.tiling
    seen = {spec.design, spec.bank_mapping, spec.weight_order, spec.kc_rule, layer.kind, f"A={spec.accumulator_banks}",
            spec.partition, spec.barrier, spec.halo_charge, spec.out_of_plane, spec.dram}
    for name, hit in (("temporal tiles", tiling.temporal_tiles > 1), ("channel chunks", tiling.channel_chunks > 1),
                      ("groups", tiling.out_groups > 1), ("conflicts", c.bank_conflict_cycles > 0),
                      ("load stall", c.input_load_stall_cycles > 0), ("stream stall", c.dram_stream_stall_cycles > 0),
                      ("barrier idle", c.barrier_idle_cycles > 0), ("halo", c.halo_link_words > 0),
                      ("spill", c.spilled_partial_sums > 0), ("psums in OARAM", c.psum_oaram_words > 0),
                      ("outputs overflow the OARAM", tiling.passes == 1 and c.dram_write_bits > 0),
                      ("FIFO overflow", c.weight_fifo_overflow_blocks > 0), ("gated", c.multiplier_ops < c.products),
                      ("stride", getattr(layer, "stride_h", 1) > 1), ("batch", getattr(layer, "batch", 1) > 1),
                      ("slot_only out-of-plane", c.crossbar_transfers < c.products and not plan.dcnn)):
        if hit:
            seen.add(name)
    return seen


def test_fast_equals_reference_on_generated_layers():
    """Every counter agrees on every generated layer, and the layers reach every mechanism."""
    seen: set[str] = set()

    @settings(derandomize=True, max_examples=100, deadline=None, database=None, phases=NO_SHRINK)
    @given(generated_case())
    def check(case):
        counted = agree(*case)
        if counted is not None:
            seen.update(mechanisms(*case, *counted))

    check()
    assert seen >= MECHANISMS, MECHANISMS - seen


def test_fast_equals_reference_with_dnnsims_rules():
    """DNNsim's rules (partition, Kc, XOR bank hash, barrier, halo charge, out-of-plane products,
    DRAM) drawn against every other switch: every counter agrees."""
    seen: set[str] = set()

    @settings(derandomize=True, max_examples=70, deadline=None, database=None, phases=NO_SHRINK)
    @given(generated_case(dnnsim=True))
    def check(case):
        counted = agree(*case)
        if counted is not None:
            seen.update(mechanisms(*case, *counted))

    check()
    assert seen >= DNNSIM_MECHANISMS, DNNSIM_MECHANISMS - seen


@settings(derandomize=True, max_examples=40, deadline=None, database=None, phases=NO_SHRINK)
@given(generated_case(dnnsim=True))
def test_conservation_laws(case):
    arch, layer = case
    try:
        plan, c = FAMILY.counters(arch, layer)
    except InputError:
        return
    spec, view, tiling = arch.scnn, plan.view, plan.tiling
    result = account(plan, c)
    assert result.macs_issued + result.macs_skipped == result.macs_dense == layer.macs
    assert c.macs_issued <= c.products and c.multiplier_ops <= c.products
    assert result.cycles >= math.ceil(c.products / (spec.pes * spec.multipliers_per_pe))
    assert c.pe_busy_cycles >= c.steps >= math.ceil(c.products / spec.multipliers_per_pe)
    assert c.pe_busy_cycles == c.steps + c.bank_conflict_cycles
    assert c.group_cycles * spec.pes == c.pe_busy_cycles + c.barrier_idle_cycles
    assert result.compute_cycles >= c.group_cycles
    outputs = view.batch * view.groups * view.out_channels * view.out_h * view.out_w
    assert c.ppu_outputs == outputs                     # every output drained once, by its owner
    if not plan.traits.compress_dram and spec.dram == "modelled":   # DCNN-opt moves compressed bits in the time of dense ones
        dram_bytes = result.dram_read_bytes + result.dram_write_bytes
        assert result.cycles >= dram_bytes / spec.dram_bandwidth - 2 * tiling.passes
    weight_bits = sum(SCNNZeroRun.from_dense(plan.weights[g, k0:k0 + tiling.kc, ch]).storage(arch.word_bits).total_bits
                      for g in range(view.groups) for ch in range(view.channels)
                      for k0 in range(0, view.out_channels, tiling.kc))
    if plan.traits.skip_weights or plan.traits.compress_dram:   # each compressed block read once per temporal tile
        assert c.dram_read_bits >= weight_bits * tiling.temporal_tiles
    else:
        assert c.dram_read_bits >= plan.weights.size * arch.word_bits * tiling.temporal_tiles
    if plan.dcnn:
        assert c.products == layer.macs and c.crossbar_transfers == 0 and c.accumulator_writes == outputs
    else:
        banked = c.macs_issued if spec.out_of_plane == "slot_only" else c.products   # DNNsim: out-of-plane: no bank
        assert c.crossbar_transfers == c.accumulator_adds == c.accumulator_reads == banked
        assert c.weight_fifo_reads == c.steps
    if tiling.passes == 1:
        assert c.input_load_stall_cycles == 0 and sum(c.iaram_write_bits) == 0
    else:
        assert sum(c.iaram_write_bits) == int(plan.input_bits.sum())
