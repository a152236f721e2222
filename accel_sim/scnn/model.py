"""SCNN (Parashar et al., ISCA 2017) and its comparison designs: one layer in, one LayerResult out.

- :func:`simulate_layer`: the fast path. Busy cycles per (temporal tile, PE, group) come from
  vectorised numpy over all (I-vector, F-vector) steps (:mod:`accel_sim.scnn.cartesian`), the
  barriers / double-buffered drains / DRAM from a closed form (:mod:`accel_sim.scnn.timeline`).
- :func:`simulate_layer_reference`: the per-cycle reference (:mod:`accel_sim.scnn.reference`):
  every product's coordinate and bank computed one by one, the crossbar delivering one product
  per bank per cycle, accumulators holding real partial sums, SimPy for barriers and drains.

Modelling choices (the paper leaves them open):

- DRAM: a layer whose input tiles fit the IARAMs (one temporal tile) finds its inputs on chip
  (the previous layer's OARAM) and leaves its outputs in the OARAM unless they overflow it;
  otherwise each temporal tile loads its inputs first (a stall), then weights, outputs and
  partial sums crossing temporal tiles stream during the compute at ``dram_bandwidth``.
  Weights are read from DRAM once per temporal tile.
- Channel chunks (the paper does not describe them; the brief only says activations that do
  not fit use temporal tiling through DRAM): when even the smallest temporal tiles do not fit
  the IARAM, the input channels are cut into the fewest contiguous equal-ish chunks that fit
  (:mod:`accel_sim.scnn.plan`). Loop order: ``for temporal tile: for channel chunk: for
  output-channel group: for channel of the chunk: ...``; each (temporal tile, chunk) *pass*
  is timed like a temporal tile: its inputs load first (a stall), then the chunk's weights
  (read once per pass), the partial sums and, in the last chunk, the outputs stream during
  its compute; each group of each pass drains as usual (halo exchange, PPU rate; halos
  crossing temporal tiles spill once per pass). A PE's partial sums of its owned outputs (all
  output channels) persist across chunks in its OARAM (counted as 24-bit OARAM writes and
  reads) when they fit it; otherwise they are written to DRAM after every chunk but the last
  and read back before every chunk but the first. A layer streamed through DRAM (more than
  one pass) writes its outputs to DRAM. Chunking changes no product: the same F x I steps
  are only split between passes.
- The weight FIFO is fed by a broadcast assumed to keep up: it is counted (entries read and
  written) but never stalls a PE; blocks with more F-vectors than FIFO entries, which would
  have to be re-streamed, are reported as ``weight_fifo_overflow_blocks``.
- ``macs_issued`` counts products whose two operands are both seen by the multipliers and
  whose output lies in the plane (for SCNN: both non-zero); ``products_issued`` also counts
  the products that fall outside the output plane at the layer's edges (computed, then
  dropped). Multiplier energy is charged per product computed (DCNN-opt: only products of two
  non-zeros; gated ones are free).
- FC / GEMM layers run as 1 x 1 convolutions of a 1 x 1 plane: one PE per image works, and
  it gets at most F useful products per cycle (brief: "4 useful products per cycle at most").
- DCNN / DCNN-opt: each PE computes its owned outputs as dot products (C x R x S long, F x I
  multipliers wide), all output channels in one group; the input halo its windows read from
  neighbouring tiles is not counted as traffic.
- Stride > 1: activations and weights are split into phase classes (see
  :mod:`accel_sim.scnn.tiling`); only matching classes are multiplied.

Both give identical cycles (tested). The design (``scnn.design``) only changes flags
(:mod:`accel_sim.scnn.designs`): which operand's zeros are skipped, dot product vs Cartesian
product, gating and DRAM compression. Batch images and conv groups run one after the other.
Counted per layer: multiplier ops (energised: products minus gated ones), crossbar transfers,
accumulator bank read-modify-writes, IARAM / OARAM entries, weight-FIFO entries, halo link
words, PPU outputs and DRAM bytes; metrics: multiplier utilisation, barrier idle fraction,
bank-conflict cycles, Kc, temporal tiles and channel chunks.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from accel_sim.arch.spec import ArchSpec
from accel_sim.errors import SimulationError
from accel_sim.results.counts import ActionCount
from accel_sim.results.layer_result import LayerResult
from accel_sim.scnn import cartesian
from accel_sim.scnn.drain import DrainGeometry, drain_cycles, drain_geometry, group_channels
from accel_sim.scnn.encoding import block_bits, block_entries
from accel_sim.scnn.functional import layer_outputs, useful_products
from accel_sim.scnn.plan import BITS_PER_BYTE, LayerPlan, chunk_storage_bits, plan_layer, plane_storage_bits
from accel_sim.scnn.timeline import TileTiming, tile_timing
from accel_sim.workload.layer import Layer
from accel_sim.workload.operands import layer_operands


@dataclass(frozen=True)
class GroupWork:
    """Work of one (image, conv group): arrays (passes, PEs, groups); a pass is one (temporal
    tile, channel chunk)."""

    busy: np.ndarray
    products: np.ndarray      # multiplier products issued (zero operands of unskipped kinds included)
    steps: np.ndarray         # Cartesian steps (I-vector x F-vector pairs); dense: busy cycles
    iaram_reads: int          # activation entries read from the IARAM
    fifo_reads: int           # weight-FIFO entries read
    fifo_writes: int          # weight-FIFO entries written (broadcast to every PE)
    fifo_overflow_blocks: int  # (channel, group) weight blocks with more F-vectors than FIFO entries


def _counts(t_ids, seg_ids, pe_ids, n_t, n_seg, n_pe) -> np.ndarray:
    flat = (t_ids * n_pe + pe_ids) * n_seg + seg_ids
    return np.bincount(flat, minlength=n_t * n_pe * n_seg).reshape(n_t, n_pe, n_seg)


def cartesian_work(plan: LayerPlan, image: int, conv_group: int, weights: cartesian.WeightVectors,
                   reference: bool = False) -> GroupWork:
    """``weights``: the conv group's F-vectors (``cartesian.weight_vectors``, shared by the batch's images)."""
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    elements = cartesian.activation_elements(spec, view, tiling, plan.input_mask[image, conv_group])
    acts = cartesian.activation_vectors(spec, view, tiling, elements)
    n_seg = weights.seg_start.size - 1
    n_t, n_pe = tiling.passes, spec.pes
    tile, seg, pe, _ = elements
    na = _counts(tile, seg, pe, n_t, n_seg, n_pe)
    va = _counts(acts.tile, acts.segment, acts.pe, n_t, n_seg, n_pe)
    nw, vw = weights.weights_per_block, weights.vectors_per_block
    products = na @ nw
    steps = va @ vw
    if reference:
        from accel_sim.scnn.reference import reference_busy
        busy = reference_busy(plan, image, conv_group)
    else:
        busy = cartesian.busy_cycles(spec, tiling, acts, weights)
    # every F-vector is broadcast once per temporal tile (in the pass of its channel's chunk)
    return GroupWork(busy, products, steps, int((na @ (nw > 0)).sum()), int(steps.sum()),
                     tiling.temporal_tiles * n_pe * int(weights.count.size),
                     int((vw > spec.weight_fifo_entries).sum()))


def dense_work(plan: LayerPlan, geometry: DrainGeometry) -> GroupWork:
    """DCNN / DCNN-opt: each PE computes its owned outputs as dot products of length C x R x S
    (per pass: the chunk's channels x R x S), F x I multipliers wide; all output channels in one group."""
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    reduction = np.diff(tiling.channel_bounds) * view.r * view.s            # (chunks,)
    lanes = spec.multipliers_per_pe
    owned = geometry.owned[:, None, :, None]                                 # (tiles, 1, PEs, 1)
    busy = owned * view.out_channels * (-(-reduction // lanes))[None, :, None, None]
    products = owned * view.out_channels * reduction[None, :, None, None]
    passes = (tiling.passes, spec.pes, 1)
    return GroupWork(busy.reshape(passes), products.reshape(passes), busy.reshape(passes),
                     int(geometry.owned.sum()) * int(reduction.sum()), int(busy.sum()) * spec.mult_i, 0, 0)


def weight_storage_bits(plan: LayerPlan, conv_group: int, compressed: bool) -> np.ndarray:
    """DRAM / FIFO bits of one conv group's weights per channel chunk: one zero-run block per
    (channel, group), linearised over R x S then K; or dense words."""
    view, tiling, spec = plan.view, plan.tiling, plan.spec
    weights = plan.weights[conv_group]
    if not compressed:
        return np.diff(tiling.channel_bounds) * (int(weights[:, 0].size) * plan.value_bits)
    k, c, r, s = (v.astype(np.int64) for v in np.nonzero(weights))
    g = k // tiling.kc
    block = c * tiling.out_groups + g
    if spec.weight_order == "rs_then_k":
        position = ((k % tiling.kc) * view.r + r) * view.s + s
        order = np.argsort(block, kind="stable")  # np.nonzero's (k, c, r, s) order: ascending position per block
    else:
        kc_g = group_channels(view.out_channels, tiling.kc, tiling.out_groups)[g]
        position = (r * view.s + s) * kc_g + k % tiling.kc
        order = np.lexsort((position, block))
    n_blocks = view.channels * tiling.out_groups
    entries = block_entries(block[order], position[order], n_blocks, spec.index_bits)
    sizes = np.tile(group_channels(view.out_channels, tiling.kc, tiling.out_groups) * view.r * view.s, view.channels)
    per_channel = block_bits(entries, sizes, plan.value_bits, spec.index_bits).reshape(view.channels, -1).sum(axis=1)
    return np.add.reduceat(per_channel, tiling.channel_bounds[:-1]).astype(np.int64)


@dataclass
class Totals:
    cycles: int = 0
    compute: int = 0
    stall: int = 0
    barrier_idle: int = 0
    group_cycles: int = 0
    products: int = 0
    steps: int = 0
    busy: int = 0
    iaram_reads: int = 0
    iaram_writes: int = 0
    fifo_reads: int = 0
    fifo_writes: int = 0
    fifo_overflow: int = 0
    oaram_writes: int = 0
    ppu_outputs: int = 0
    link_words: int = 0
    spill_words: int = 0
    dram_read_bits: int = 0
    dram_write_bits: int = 0
    psum_oaram_words: int = 0   # partial sums kept in the OARAM between channel chunks (written, then read)


TimelineFn = Callable[[np.ndarray, np.ndarray, int, int], TileTiming]


def run_layer(arch: ArchSpec, layer: Layer, reference: bool, timeline: TimelineFn,
              max_cycles: int | None) -> LayerResult:
    plan = plan_layer(arch, layer)
    spec, view, traits = plan.spec, plan.view, plan.traits
    if plan.dcnn:
        plan = dataclasses.replace(plan, tiling=dataclasses.replace(plan.tiling, kc=view.out_channels, out_groups=1))
    tiling = plan.tiling
    geometry = drain_geometry(spec, tiling, view.out_h, view.out_w)
    channels = group_channels(view.out_channels, tiling.kc, tiling.out_groups)
    drains = drain_cycles(spec, geometry, channels, halo=not plan.dcnn)
    outputs = layer_outputs(layer)
    value_bits, entry_bits = plan.value_bits, plan.value_bits + spec.index_bits
    activations_compressed_on_chip = traits.skip_activations
    activations_compressed_dram = traits.skip_activations or traits.compress_dram
    weights_compressed_dram = traits.skip_weights or traits.compress_dram
    bandwidth = spec.dram_bandwidth
    n_t, n_chunks = tiling.temporal_tiles, tiling.channel_chunks
    through_dram = tiling.passes > 1
    chunk_psums = chunk_partial_sums(plan, geometry)
    totals = Totals()
    for g in range(view.groups):
        weight_bits = weight_storage_bits(plan, g, weights_compressed_dram)
        # DCNN-opt's DRAM compression saves energy only (paper, Table 6): its transfers take DCNN's time
        weight_time_bits = (weight_bits if weights_compressed_dram == traits.skip_weights
                            else weight_storage_bits(plan, g, traits.skip_weights))
        weights = None if plan.dcnn else cartesian.weight_vectors(spec, view, tiling, plan.weight_mask[g])
        for b in range(view.batch):
            work = dense_work(plan, geometry) if plan.dcnn else cartesian_work(plan, b, g, weights, reference)
            chip_in = plan.input_bits[b, g].sum(axis=2)                 # (temporal tiles, chunks)
            if not through_dram:
                in_bits = in_time_bits = np.zeros((n_t, n_chunks), dtype=np.int64)
            elif activations_compressed_dram == activations_compressed_on_chip:
                in_bits = in_time_bits = chip_in
            else:
                in_bits = chunk_storage_bits(tiling, spec, plan.inputs[b, g], activations_compressed_dram,
                                             value_bits).sum(axis=2)
                in_time_bits = chip_in
            out_plane = outputs[b, g]
            out_chip = plane_storage_bits(tiling, spec, out_plane, activations_compressed_on_chip, value_bits,
                                          owned=True)
            out_dram = (out_chip if activations_compressed_dram == activations_compressed_on_chip else
                        plane_storage_bits(tiling, spec, out_plane, activations_compressed_dram, value_bits,
                                           owned=True)).sum(axis=1)
            out_time = out_chip.sum(axis=1)
            spill_to_dram = through_dram or int(out_chip.max()) > spec.oaram_size * BITS_PER_BYTE
            spill = (geometry.spill.sum(axis=1) * view.out_channels if not plan.dcnn
                     else np.zeros(n_t, dtype=np.int64))
            for t in range(n_t):
                for chunk in range(n_chunks):
                    last = chunk == n_chunks - 1
                    psum_in = int(chunk_psums.dram_bits[t]) if chunk > 0 else 0
                    psum_out = int(chunk_psums.dram_bits[t]) if not last else 0
                    out_time_bits = int(out_time[t]) if spill_to_dram and last else 0
                    load = math.ceil(int(in_time_bits[t, chunk]) / BITS_PER_BYTE / bandwidth)
                    stream_bits = int(weight_time_bits[chunk]) + out_time_bits \
                        + 2 * int(spill[t]) * spec.accumulator_bits + psum_in + psum_out
                    stream = math.ceil(stream_bits / BITS_PER_BYTE / bandwidth)
                    timing = timeline(work.busy[t * n_chunks + chunk], drains[t], load, stream)
                    totals.compute += timing.compute_cycles
                    totals.stall += timing.stall_cycles
                    totals.barrier_idle += timing.barrier_idle
                    totals.group_cycles += timing.group_cycles
                    totals.dram_read_bits += int(weight_bits[chunk]) + int(in_bits[t, chunk]) \
                        + int(spill[t]) * spec.accumulator_bits + psum_in
                    totals.dram_write_bits += (int(out_dram[t]) if spill_to_dram and last else 0) \
                        + int(spill[t]) * spec.accumulator_bits + psum_out
            totals.products += int(work.products.sum())
            totals.steps += int(work.steps.sum())
            totals.busy += int(work.busy.sum())
            totals.iaram_reads += work.iaram_reads
            totals.fifo_reads += work.fifo_reads
            totals.fifo_writes += work.fifo_writes
            totals.fifo_overflow += work.fifo_overflow_blocks
            entries_in = int(in_time_bits.sum()) // (entry_bits if activations_compressed_on_chip else value_bits)
            totals.iaram_writes += entries_in if through_dram else 0
            totals.oaram_writes += int(out_chip.sum()) // (entry_bits if activations_compressed_on_chip
                                                           else value_bits)
            totals.ppu_outputs += int(geometry.owned.sum()) * view.out_channels
            totals.psum_oaram_words += chunk_psums.oaram_words
            if not plan.dcnn:
                totals.link_words += int(geometry.link.sum()) * view.out_channels
                totals.spill_words += int(spill.sum())
    totals.cycles = totals.compute + totals.stall
    return layer_result(arch, layer, plan, totals, max_cycles)


@dataclass(frozen=True)
class ChunkPartialSums:
    """Partial sums of owned outputs carried from one channel chunk to the next (per image and conv group)."""

    dram_bits: np.ndarray   # (temporal tiles,) bits written after / read before each chunk boundary (0: on chip)
    oaram_words: int        # partial sums written to and read back from the OARAM, each (0: through DRAM)


def chunk_partial_sums(plan: LayerPlan, geometry: DrainGeometry) -> ChunkPartialSums:
    """A PE keeps the partial sums of its owned outputs (all output channels) in its OARAM between
    channel chunks if they fit it, else they cross each chunk boundary through DRAM."""
    spec, tiling = plan.spec, plan.tiling
    boundaries = tiling.channel_chunks - 1
    owned = geometry.owned * plan.view.out_channels                      # (temporal tiles, PEs)
    if boundaries == 0:
        return ChunkPartialSums(np.zeros(tiling.temporal_tiles, dtype=np.int64), 0)
    if int(owned.max()) * spec.accumulator_bits <= spec.oaram_size * BITS_PER_BYTE:
        return ChunkPartialSums(np.zeros(tiling.temporal_tiles, dtype=np.int64), boundaries * int(owned.sum()))
    return ChunkPartialSums(owned.sum(axis=1) * spec.accumulator_bits, 0)


def layer_result(arch: ArchSpec, layer: Layer, plan: LayerPlan, totals: Totals,
                 max_cycles: int | None) -> LayerResult:
    spec, view, traits = plan.spec, plan.view, plan.traits
    peak = spec.pes * spec.multipliers_per_pe
    if plan.dcnn:
        issued = layer.macs
    else:
        issued = useful_products(view, plan.weight_mask, plan.input_mask)
    budget = max_cycles if max_cycles is not None else 4 * (totals.products + totals.steps) + 10**6 \
        + 4 * (totals.dram_read_bits + totals.dram_write_bits)
    if totals.cycles > budget:
        raise SimulationError(f"{layer.name}: {totals.cycles} cycles exceed the max_cycles guard {budget}")
    if traits.gate_zero_operands:
        energised = useful_products(view, plan.weights != 0, plan.inputs != 0)
    else:
        energised = totals.products
    word, acc = plan.value_bits, spec.accumulator_bits
    entry = word + spec.index_bits
    act_bits = entry if traits.skip_activations else word
    fifo_bits = (spec.mult_f * (word + spec.index_bits) if traits.skip_weights else spec.mult_f * word)
    iaram_cap, oaram_cap = spec.iaram_size, spec.oaram_size
    actions = (
        ActionCount("multipliers", "mult_int", "op", energised, word),
        ActionCount("crossbar", "crossbar", "transfer", 0 if plan.dcnn else totals.products, acc),
        ActionCount("accumulator_banks", "add_int", "op", totals.products, acc),
        ActionCount("accumulator_banks", "register_file", "read", 0 if plan.dcnn else totals.products, acc),
        ActionCount("accumulator_banks", "register_file", "write",
                    totals.ppu_outputs if plan.dcnn else totals.products, acc),
        ActionCount("iaram", "sram", "read", totals.iaram_reads, act_bits, iaram_cap),
        ActionCount("iaram", "sram", "write", totals.iaram_writes, act_bits, iaram_cap),
        ActionCount("oaram", "sram", "write", totals.oaram_writes, act_bits, oaram_cap),
        ActionCount("weight_fifo", "register_file", "read", totals.fifo_reads, fifo_bits),
        ActionCount("weight_fifo", "register_file", "write", totals.fifo_writes, fifo_bits),
        ActionCount("halo_links", "link", "transfer", totals.link_words, acc),
        ActionCount("ppu", "add_int", "op", totals.ppu_outputs, acc),
        ActionCount("dram", "dram", "read", math.ceil(totals.dram_read_bits / BITS_PER_BYTE), BITS_PER_BYTE),
        ActionCount("dram", "dram", "write", math.ceil(totals.dram_write_bits / BITS_PER_BYTE), BITS_PER_BYTE),
    )
    if totals.psum_oaram_words:
        actions += (ActionCount("oaram", "sram", "write", totals.psum_oaram_words, acc, oaram_cap),
                    ActionCount("oaram", "sram", "read", totals.psum_oaram_words, acc, oaram_cap))
    multiplier_cycles = totals.cycles * peak
    metrics = {
        "products_issued": float(totals.products),
        "steps": float(totals.steps),
        "multiplier_utilization": totals.products / multiplier_cycles if multiplier_cycles else 0.0,
        "useful_utilization": issued / multiplier_cycles if multiplier_cycles else 0.0,
        "intra_pe_utilization": totals.products / (totals.busy * spec.multipliers_per_pe) if totals.busy else 0.0,
        "barrier_idle_fraction": (totals.barrier_idle / (totals.group_cycles * spec.pes)
                                  if totals.group_cycles else 0.0),
        "bank_conflict_cycles": float(totals.busy - totals.steps),
        "kc": float(plan.tiling.kc),
        "output_groups": float(plan.tiling.out_groups),
        "temporal_tiles": float(plan.tiling.temporal_tiles),
        "channel_chunks": float(plan.tiling.channel_chunks),
        "weight_fifo_overflow_blocks": float(totals.fifo_overflow),
        "halo_link_words": float(totals.link_words),
        "spilled_partial_sums": float(totals.spill_words),
    }
    sram_read_bits = totals.iaram_reads * act_bits + totals.psum_oaram_words * acc
    sram_write_bits = (totals.iaram_writes + totals.oaram_writes) * act_bits + totals.psum_oaram_words * acc
    return LayerResult(
        layer=layer.name, cycles=totals.cycles, compute_cycles=totals.compute, stall_cycles=totals.stall,
        macs_dense=layer.macs, macs_issued=issued, peak_macs_per_cycle=peak,
        dram_read_bytes=math.ceil(totals.dram_read_bits / BITS_PER_BYTE),
        dram_write_bytes=math.ceil(totals.dram_write_bits / BITS_PER_BYTE),
        sram_read_bytes=math.ceil(sram_read_bits / BITS_PER_BYTE),
        sram_write_bytes=math.ceil(sram_write_bits / BITS_PER_BYTE),
        actions=actions, metrics=MappingProxyType(metrics),
        operand_hashes=MappingProxyType(layer_operands(layer).hashes))


def simulate_layer(arch: ArchSpec, layer: Layer, max_cycles: int | None = None) -> LayerResult:
    """Fast path (vectorised steps, closed-form timeline)."""
    return run_layer(arch, layer, reference=False, timeline=tile_timing, max_cycles=max_cycles)


def simulate_layer_reference(arch: ArchSpec, layer: Layer, max_cycles: int | None = None) -> LayerResult:
    """Per-cycle reference (slow: small layers only); same results as :func:`simulate_layer`."""
    from accel_sim.scnn.reference import simpy_tile_timing

    return run_layer(arch, layer, reference=True, timeline=simpy_tile_timing, max_cycles=max_cycles)
