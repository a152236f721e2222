"""Generic PE array with one switch for its level of weight-sparsity support.

One layer in, one :class:`LayerResult` out, in two implementations with identical cycles:
:func:`simulate_layer` (fast path, :mod:`accel_sim.pe_array.timing`) and
:func:`simulate_layer_reference` (per-cycle, :mod:`accel_sim.pe_array.reference`).

Organisation (output stationary): ``rows`` x ``cols`` PEs; a tile is ``rows`` filters x
``cols`` output pixels; each PE row shares one filter's weight stream, ``vector_width``
positions per cycle, and each PE reads its pixel's activation at the positions its row
processes. Tiles run filter tile by filter tile (outer), pixel tile by pixel tile (inner).
Each tile loads its pixels' activations once from the input buffer into a register file
per PE column (``K`` words deep; its size is not limited by the config, a simplification);
the rows read their activations there. Accumulators are drained while the next tile runs.
Groups of a grouped convolution run one after the other.
The per-cycle rules of each level are in :mod:`accel_sim.pe_array.timing`.

The levels (``pe_array.sparsity_support``):

- ``none``: weights stored dense (decompressed in memory): zeros travel through DRAM and
  SRAM and are multiplied.
- ``memory``: weights stored and moved compressed (``weight_format``: CSR, bitmap or N:M,
  footprints from :mod:`accel_sim.compress`); a decompressor between the weight buffer and
  the array expands them (its chunk decodes are counted; the config is refused unless it
  delivers ``vector_width`` positions per cycle, so cycles are those of ``none``). Zeros
  are multiplied.
- ``gating``: as ``memory``, and a MAC with a zero weight or a zero activation is gated
  (``mult_int/gated``): energy falls, cycles do not.
- ``skipping``: each row's index decoder feeds only the stored weights (non-zeros; N:M also
  its zero slots); rows finish on their own, the tile waits for the slowest. Activation
  zeros are still gated. Rows index the column register files independently, so each row
  reads its own activations there (in the dense levels one read serves every row).
- ``reassignment``: as skipping, and a row whose own stream is done takes the next chunks of
  busier rows of its window through a crossbar (weights in, one partial sum per pixel back
  per run of chunks taken from one row).

MAC accounting: ``macs_issued`` are the MACs the multipliers performed (dense levels: all;
others: both operands non-zero); ``metrics['macs_gated']`` MACs reaching a gated
multiplier, ``metrics['macs_skipped']`` MACs never issued; issued + gated + skipped = dense.
(``LayerResult.macs_skipped`` is dense - issued = gated + skipped.) N:M slots that fall on
the zero padding past the reduction length cost gated multiplier actions but are not MACs
of the layer.

Memory: each operand comes from DRAM once when it fits its buffer (weights: an average filter
tile in ``weight_sram_size``; inputs: the whole group in ``input_sram_size``), else once per
tile pass. DRAM transfers overlap compute (double buffering); with
``dram.bandwidth_mode: user`` each of the weight, input and output streams moves
``dram.bandwidth`` bytes per cycle and the layer takes the longer of compute and memory
(``stall_cycles`` is the difference). ``calc``: memory never stalls.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from accel_sim.arch.spec import ArchSpec
from accel_sim.pe_array import decoder
from accel_sim.pe_array.spec import PEArraySpec
from accel_sim.pe_array.timing import FilterTileTiming, dense_timing, reassignment_timing, skipping_timing
from accel_sim.pe_array.work import GroupWork, group_weights, layer_work
from accel_sim.results.counts import ActionCount
from accel_sim.results.layer_result import LayerResult
from accel_sim.workload.layer import ConvLayer, Layer
from accel_sim.workload.operands import layer_operands

BITS_PER_BYTE = 8


def _spec(arch: ArchSpec) -> PEArraySpec:
    return arch.section("pe_array")


@dataclass
class _Totals:
    """Counts summed over a layer's groups."""

    compute: int = 0
    issued: int = 0
    gated: int = 0
    skipped: int = 0
    padding_slots: int = 0
    reassigned: int = 0
    weight_dram_bits: int = 0
    input_dram_bits: int = 0
    output_words: int = 0
    weight_fill_bits: int = 0
    weight_read_bits: int = 0
    input_read_words: int = 0
    act_rf_reads: int = 0
    decodes: int = 0
    crossbar_weights: int = 0
    crossbar_psums: int = 0
    storage_bits: int = 0
    index_bits: int = 0
    filter_tiles: int = 0
    pixel_tiles: int = 0
    chunk_bits: int = 0


def group_timing(spec: PEArraySpec, work: GroupWork, reference: bool = False) -> FilterTileTiming:
    """Per-filter-tile compute cycles of one pixel tile."""
    items = decoder.chunk_items(spec, work.weights) if spec.decodes else None
    if reference:
        from accel_sim.pe_array.reference import reference_timing
        return reference_timing(spec, work.k, items, work.n)
    if items is None:
        return dense_timing(spec, work.k, work.n)
    return reassignment_timing(spec, items) if spec.sparsity_support == "reassignment" else skipping_timing(spec, items)


def _group_inputs(layer: Layer, work: GroupWork) -> int:
    if isinstance(layer, ConvLayer):
        return layer.batch * (layer.in_channels // layer.groups) * layer.in_h * layer.in_w
    return layer.m * layer.k


@lru_cache(maxsize=32)
def _weight_storage(layer: Layer, weight_format: str, nm_n: int, nm_m: int,
                    word_bits: int) -> tuple[tuple[int, int], ...]:
    """Per group: (total, index + pointer + metadata) bits of its compressed weights (cached: the
    levels of a ladder share them)."""
    fmt = PEArraySpec(weight_format=weight_format, nm_n=nm_n, nm_m=nm_m)
    stores = (decoder.storage(fmt, w, word_bits) for w in group_weights(layer, layer_operands(layer)))
    return tuple((s.total_bits, s.total_bits - s.values_bits - s.padding_bits) for s in stores)


def _add_group(arch: ArchSpec, layer: Layer, group: int, work: GroupWork, timing: FilterTileTiming,
               t: _Totals) -> None:
    spec, word = _spec(arch), arch.word_bits
    k, n, m = work.k, work.n, work.m
    pixel_tiles, filter_tiles = math.ceil(m / spec.cols), len(timing.cycles)
    t.filter_tiles += filter_tiles
    t.pixel_tiles += pixel_tiles
    t.compute += pixel_tiles * sum(timing.cycles)
    dense = m * k * n
    if spec.sparsity_support in ("none", "memory"):
        issued, gated = dense, 0
    else:
        issued = work.effectual_macs
        processed = k * n if spec.sparsity_support == "gating" else decoder.processed_positions(spec, work.weights)
        gated = processed * m - issued
        if spec.decodes and spec.weight_format == "nm":
            t.padding_slots += (math.ceil(k / spec.nm_m) * spec.nm_n - decoder.nm_real_slots(spec, k)) * n * m
    t.issued += issued
    t.gated += gated
    t.skipped += dense - issued - gated
    t.reassigned += timing.stolen_items * m
    # weights: footprint, DRAM passes, buffer traffic
    if spec.compressed:
        weight_bits, index_bits = _weight_storage(layer, spec.weight_format, spec.nm_n, spec.nm_m, word)[group]
        items = decoder.chunk_items(spec, work.weights)
        t.decodes += int((items >= 0).sum()) * pixel_tiles
        t.chunk_bits = decoder.chunk_index_bits(spec, k)
    else:
        weight_bits, index_bits = k * n * word, 0
    t.storage_bits += weight_bits
    t.index_bits += index_bits
    fits = math.ceil(weight_bits / filter_tiles) <= spec.weight_sram_size * BITS_PER_BYTE
    weight_passes = 1 if fits else pixel_tiles
    t.weight_dram_bits += weight_bits * weight_passes
    t.weight_fill_bits += weight_bits * weight_passes
    t.weight_read_bits += weight_bits * pixel_tiles
    inputs = _group_inputs(layer, work)
    input_passes = 1 if inputs * word <= spec.input_sram_size * BITS_PER_BYTE else filter_tiles
    t.input_dram_bits += inputs * word * input_passes
    t.input_read_words += k * m * filter_tiles  # each tile loads its pixels' activations once
    if spec.decodes:  # rows pick their own positions out of the column register files
        t.act_rf_reads += decoder.processed_positions(spec, work.weights) * m
    else:             # lockstep rows: one read broadcast along the column
        t.act_rf_reads += k * m * filter_tiles
    t.output_words += m * n
    t.crossbar_weights += timing.stolen_items * pixel_tiles
    t.crossbar_psums += timing.psum_runs * m


def dram_cycles(arch: ArchSpec, t: _Totals) -> int:
    """Cycles the DRAM streams need (0 in calc mode: memory never stalls)."""
    if arch.dram.bandwidth_mode == "calc":
        return 0
    streams = (t.weight_dram_bits, t.input_dram_bits, t.output_words * arch.word_bits)
    return max(math.ceil(bits / BITS_PER_BYTE / arch.dram.bandwidth) for bits in streams) + arch.dram.latency


def _words(bits: int, word: int) -> int:
    return math.ceil(bits / word)


def _bytes(bits: int) -> int:
    return math.ceil(bits / BITS_PER_BYTE)


def layer_result(arch: ArchSpec, layer: Layer, t: _Totals, hashes: dict[str, str]) -> LayerResult:
    spec, word, acc = _spec(arch), arch.word_bits, _spec(arch).accumulator_bits
    memory = dram_cycles(arch, t)
    cycles = max(t.compute, memory)
    weight_dram, input_dram = _words(t.weight_dram_bits, word), _words(t.input_dram_bits, word)
    actions = [
        ActionCount("dram", "dram", "read", weight_dram + input_dram, word),
        ActionCount("dram", "dram", "write", t.output_words, word),
        ActionCount("weight_sram", "sram", "write", _words(t.weight_fill_bits, word), word, spec.weight_sram_size),
        ActionCount("weight_sram", "sram", "read", _words(t.weight_read_bits, word), word, spec.weight_sram_size),
        ActionCount("input_sram", "sram", "write", input_dram, word, spec.input_sram_size),
        ActionCount("input_sram", "sram", "read", t.input_read_words, word, spec.input_sram_size),
        ActionCount("activation_rf", "register_file", "write", t.input_read_words, word),
        ActionCount("activation_rf", "register_file", "read", t.act_rf_reads, word),
        ActionCount("output_sram", "sram", "write", t.output_words, word, spec.output_sram_size),
        ActionCount("output_sram", "sram", "read", t.output_words, word, spec.output_sram_size),
        ActionCount("pe_array", "mult_int", "op", t.issued, word),
        ActionCount("pe_array", "add_int", "op", t.issued, acc),
        ActionCount("pe_array", "mult_int", "gated", t.gated + t.padding_slots, word),
        ActionCount("pe_array", "mult_int", "skip", t.skipped, word),
    ]
    if spec.compressed:
        actions.append(ActionCount("index_decoder", "index_decoder", "decode", t.decodes, max(1, t.chunk_bits)))
    if spec.sparsity_support == "reassignment":
        actions += [ActionCount("crossbar", "crossbar", "transfer", t.crossbar_weights, word),
                    ActionCount("crossbar", "crossbar", "transfer", t.crossbar_psums, acc)]
    metrics = {
        "macs_gated": float(t.gated),
        "macs_skipped": float(t.skipped),
        "macs_reassigned": float(t.reassigned),
        "nm_padding_slots": float(t.padding_slots),
        "filter_tiles": float(t.filter_tiles),
        "pixel_tiles": float(t.pixel_tiles),
        "decoder_chunks": float(t.decodes),
        "weight_storage_bits": float(t.storage_bits),
        "weight_index_bits": float(t.index_bits),
        "dram_cycles": float(memory),
        "crossbar_transfers": float(t.crossbar_weights + t.crossbar_psums),
    }
    return LayerResult(
        layer=layer.name, cycles=cycles, compute_cycles=t.compute, stall_cycles=cycles - t.compute,
        macs_dense=layer.macs, macs_issued=t.issued, peak_macs_per_cycle=spec.rows * spec.cols * spec.vector_width,
        dram_read_bytes=_bytes(t.weight_dram_bits) + _bytes(t.input_dram_bits),
        dram_write_bytes=_bytes(t.output_words * word),
        sram_read_bytes=_bytes(t.weight_read_bits) + _bytes((t.input_read_words + t.output_words) * word),
        sram_write_bytes=_bytes(t.weight_fill_bits) + _bytes((input_dram + t.output_words) * word),
        actions=tuple(actions), metrics=MappingProxyType(metrics), operand_hashes=MappingProxyType(hashes))


def _simulate(arch: ArchSpec, layer: Layer, reference: bool) -> LayerResult:
    spec = _spec(arch)
    ops = layer_operands(layer)
    totals = _Totals()
    for group, work in enumerate(layer_work(layer, ops)):
        if spec.compressed and spec.weight_format == "nm":
            decoder.check_nm(spec, work.weights, layer.name)
        _add_group(arch, layer, group, work, group_timing(spec, work, reference), totals)
    return layer_result(arch, layer, totals, ops.hashes)


def simulate_layer(arch: ArchSpec, layer: Layer) -> LayerResult:
    """Fast path: vectorised tile timing (see :mod:`accel_sim.pe_array.timing`)."""
    return _simulate(arch, layer, reference=False)


def simulate_layer_reference(arch: ArchSpec, layer: Layer) -> LayerResult:
    """Per-cycle reference (slow; same results as :func:`simulate_layer`)."""
    return _simulate(arch, layer, reference=True)
