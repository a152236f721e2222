"""Tile timing of the DLU-style array: a lock-step three-stage pipeline, in closed form.

Per step ``s`` the loader fetches tile ``s`` from DRAM into the free half of the on-chip
memory, the array computes tile ``s - 1`` and the drain stage takes the outputs of tile
``s - 2`` (when it completed a block) through the statistics block and writes them back;
the three meet at a barrier at the end of every step, so a step lasts as long as its
slowest stage. After the last step software reads the histogram counters out (readout).

Stage cycles of one tile:

- load: ``dram.latency + ceil(max(input bytes, weight bytes) / bandwidth)`` (the two
  operand streams each have ``dram.bandwidth``; ``calc`` mode: no load time);
- compute: the chunk length (one operand pair per lane per cycle);
- statistics: ``stats_latency + ceil(outputs per unit / stats_results_per_cycle)`` for a
  completed block of a fixed-point type with the statistics block on, else 0;
- write-back: ``ceil(output bytes / bandwidth)`` (posted writes; ``calc`` mode: 0).

``compute_cycles`` counts per step the array and the statistics block (work the chip does
with an ideal memory) plus the readout; the rest of ``cycles`` is memory stall.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from accel_sim.dlu.tiling import BITS_PER_BYTE, TileArrays


@dataclass(frozen=True)
class StageParameters:
    operand_bits: int
    output_bits: int
    dram_bytes_per_cycle: float | None   # None: ideal DRAM (calc mode)
    dram_latency: int
    units: int
    statistics: bool
    stats_results_per_cycle: int
    stats_latency: int
    readout_cycles: int


def bytes_of(words, bits: int):
    return -(-(np.asarray(words, dtype=np.int64) * bits) // BITS_PER_BYTE)


def load_cycles(input_words, weight_words, p: StageParameters) -> np.ndarray:
    inputs, weights = bytes_of(input_words, p.operand_bits), bytes_of(weight_words, p.operand_bits)
    if p.dram_bytes_per_cycle is None:
        return np.zeros_like(inputs)
    largest = np.maximum(inputs, weights)
    return np.where(largest > 0, p.dram_latency + np.ceil(largest / p.dram_bytes_per_cycle).astype(np.int64), 0)


def stats_cycles(outputs, last_chunk, p: StageParameters) -> np.ndarray:
    outputs = np.asarray(outputs, dtype=np.int64)
    if not p.statistics:
        return np.zeros_like(outputs)
    per_unit = -(-outputs // p.units)
    return np.where(last_chunk, p.stats_latency + -(-per_unit // p.stats_results_per_cycle), 0)


def write_cycles(outputs, last_chunk, p: StageParameters) -> np.ndarray:
    out_bytes = bytes_of(outputs, p.output_bits)
    if p.dram_bytes_per_cycle is None:
        return np.zeros_like(out_bytes)
    return np.where(last_chunk, np.ceil(out_bytes / p.dram_bytes_per_cycle).astype(np.int64), 0)


@dataclass(frozen=True)
class GroupTiming:
    cycles: int
    compute_cycles: int
    tiles: int


def _shifted(x: np.ndarray, shift: int, steps: int) -> np.ndarray:
    out = np.zeros(steps, dtype=np.int64)
    out[shift:shift + x.size] = x
    return out


def lockstep_timing(tiles: TileArrays, p: StageParameters) -> GroupTiming:
    """Closed form of the lock-step pipeline: the sum over steps of the slowest stage."""
    count = tiles.rows.size
    outputs = tiles.rows * tiles.cols
    steps = count + 2
    load = _shifted(load_cycles(tiles.input_words, tiles.weight_words, p), 0, steps)
    compute = _shifted(tiles.chunk.astype(np.int64), 1, steps)
    stats = _shifted(stats_cycles(outputs, tiles.last_chunk, p), 2, steps)
    write = _shifted(write_cycles(outputs, tiles.last_chunk, p), 2, steps)
    busy = np.maximum(compute, stats)
    cycles = int(np.maximum(np.maximum(load, write), busy).sum()) + p.readout_cycles
    return GroupTiming(cycles, int(busy.sum()) + p.readout_cycles, count)


def readout_cycles(counters: int, words_per_cycle: int) -> int:
    return math.ceil(counters / words_per_cycle) if counters else 0
