"""DRAM traffic of every pass, fast path (a modelling choice: the paper leaves it open).

- A layer whose input tiles fit the IARAMs (one pass) finds its inputs on chip (the previous
  layer's OARAM) and leaves its outputs in the OARAM unless they overflow it. A layer of more
  than one pass (temporal tiles or channel chunks) loads each pass's inputs first (a stall;
  written into the IARAMs) and writes its outputs to DRAM.
- Weights are read once per pass (a chunk's weights in the chunk's pass), outputs written in
  the last chunk's pass; halo partial sums crossing temporal tiles are written and read back
  (24-bit) once per pass; partial sums of owned outputs cross channel-chunk boundaries in the
  OARAM when they fit it, else through DRAM (written after every chunk but the last, read
  before every chunk but the first). All of it streams during the pass's compute.
- Activations and weights move in their DRAM format (compressed when skipped, or always with
  DCNN-opt), but take the time of their on-chip format: DCNN-opt's DRAM compression saves
  energy only (paper, Table 6). Time: ``ceil(bits / 8 / dram_bandwidth)`` cycles.

How the layer is cut into passes (temporal tiles, channel chunks) is the plan's ``scnn.dram_tile_order``
(:mod:`accel_sim.models.scnn.plan.temporal_tiling`): with 'min_traffic' the plan picks the cut these rules make
move the fewest bits (:func:`~accel_sim.models.scnn.plan.temporal_tiling.dram_bits`), and this block moves them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.models.scnn.fast.drain import DrainGeometry
from accel_sim.models.scnn.plan import Plan

BITS_PER_BYTE = 8


@dataclass(frozen=True)
class ChunkPartialSums:
    """Partial sums of owned outputs carried from one channel chunk to the next (per image and conv group)."""

    dram_bits: np.ndarray   # (temporal tiles,) bits written after / read before each chunk boundary (0: on chip)
    oaram_words: int        # partial sums written to and read back from the OARAM, each (0: through DRAM)


def chunk_partial_sums(plan: Plan, geometry: DrainGeometry) -> ChunkPartialSums:
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


@dataclass(frozen=True)
class PassTraffic:
    """DRAM traffic of the passes of one (image, conv group): arrays (temporal tiles, channel chunks)."""

    read_bits: np.ndarray
    write_bits: np.ndarray
    load_cycles: np.ndarray     # the input load before the compute
    stream_cycles: np.ndarray   # the stream during the compute
    iaram_write_bits: int       # input tiles written into the IARAMs (chip format)
    spilled_words: int          # halo partial sums crossing temporal tiles, once per temporal tile


def _cycles(bits: np.ndarray, bandwidth: float) -> np.ndarray:
    return np.ceil(bits / BITS_PER_BYTE / bandwidth).astype(np.int64)


def pass_traffic(plan: Plan, image: int, conv_group: int, geometry: DrainGeometry,
                 psums: ChunkPartialSums) -> PassTraffic:
    spec, tiling = plan.spec, plan.tiling
    n_t, n_chunks = tiling.temporal_tiles, tiling.channel_chunks
    through_dram = tiling.passes > 1
    if through_dram:
        in_time = plan.input_bits[image, conv_group].sum(axis=2)
        in_bits = plan.input_dram_bits(image, conv_group)
    else:
        in_time = in_bits = np.zeros((n_t, n_chunks), dtype=np.int64)
    out_chip = plan.output_bits[image, conv_group]
    outputs_to_dram = through_dram or int(out_chip.max()) > spec.oaram_size * BITS_PER_BYTE
    last = np.arange(n_chunks) == n_chunks - 1
    out_time = np.where(last[None, :] & outputs_to_dram, out_chip.sum(axis=1)[:, None], 0)
    out_dram = np.where(last[None, :] & outputs_to_dram, plan.output_dram_bits[image, conv_group][:, None], 0)
    spill = (geometry.spill.sum(axis=1) * plan.view.out_channels if not plan.dcnn
             else np.zeros(n_t, dtype=np.int64))
    spill_bits = (spill * spec.accumulator_bits)[:, None]
    psum_in = np.where(np.arange(n_chunks)[None, :] > 0, psums.dram_bits[:, None], 0)
    psum_out = np.where(~last[None, :], psums.dram_bits[:, None], 0)
    weights_chip = plan.weight_chip_bits[conv_group][None, :]
    weights_dram = plan.weight_dram_bits[conv_group][None, :]
    stream_bits = weights_chip + out_time + 2 * spill_bits + psum_in + psum_out
    return PassTraffic(weights_dram + in_bits + spill_bits + psum_in, out_dram + spill_bits + psum_out,
                       _cycles(in_time, spec.dram_bandwidth), _cycles(stream_bits, spec.dram_bandwidth),
                       int(in_time.sum()), int(spill.sum()))
