"""Fast path: the lock-step pipeline of the DLU-style array in closed form, vectorised over tiles.

Per step ``s`` the loader fetches tile ``s`` from DRAM into the free half of the on-chip
memory, the array computes tile ``s - 1`` and the drain takes the outputs of tile ``s - 2``
(when it completed a block) through the statistics block and writes them back; the stages
meet at a barrier at the end of every step, so a step lasts as long as its slowest stage.
After the last step of a group software reads the histogram counters out (readout).

Stage cycles of one tile:

- load: ``dram.latency + ceil(max(input bytes, weight bytes) / bandwidth)`` (the two
  operand streams each have ``dram.bandwidth``; ``calc`` mode: no load time);
- compute: the chunk length (one operand pair per lane per cycle);
- statistics: ``stats_latency + ceil(outputs per unit / stats_results_per_cycle)`` for a
  completed block of a fixed-point type with the statistics block on, else 0;
- write-back: ``ceil(output bytes / bandwidth)`` (posted writes; ``calc`` mode: 0).

``compute_cycles`` counts per step the array or the statistics block (work the chip does with
an ideal memory) plus the readout; the rest of ``cycles`` is stall, charged to the loads as
far as they outlast that work, the rest to the write-back.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.dlu.counters import DLUCounters
from accel_sim.dlu.plan import DLUPlan, bytes_of
from accel_sim.errors import SimulationError


def _bandwidth(plan: DLUPlan) -> float | None:
    """DRAM bytes per cycle per stream; None: an ideal DRAM (``calc`` mode)."""
    dram = plan.arch.dram
    return dram.bandwidth if dram.bandwidth_mode == "user" else None


def load_cycles(plan: DLUPlan) -> np.ndarray:
    bits, bandwidth = plan.spec.bits, _bandwidth(plan)
    inputs, weights = bytes_of(plan.tiles.input_words, bits), bytes_of(plan.tiles.weight_words, plan.stored_weight_bits)
    if bandwidth is None:
        return np.zeros_like(inputs)
    largest = np.maximum(inputs, weights)
    return np.where(largest > 0, plan.arch.dram.latency + np.ceil(largest / bandwidth).astype(np.int64),
                    0)  # a tile whose operands are all on chip loads nothing, not even the latency


def stats_cycles(plan: DLUPlan, outputs: np.ndarray) -> np.ndarray:
    if not plan.statistics:
        return np.zeros_like(outputs)
    spec = plan.spec
    per_unit = -(-outputs // spec.processing_units)
    return np.where(plan.tiles.last_chunk, spec.stats_latency + -(-per_unit // spec.stats_results_per_cycle), 0)


def write_cycles(plan: DLUPlan, outputs: np.ndarray) -> np.ndarray:
    out_bytes, bandwidth = bytes_of(outputs, plan.spec.bits), _bandwidth(plan)
    if bandwidth is None:
        return np.zeros_like(out_bytes)
    return np.where(plan.tiles.last_chunk, np.ceil(out_bytes / bandwidth).astype(np.int64), 0)


def readout_cycles(plan: DLUPlan) -> int:
    """Cycles to read every histogram counter out, ``readout_words_per_cycle`` at a time."""
    return math.ceil(plan.histogram_counters / plan.spec.readout_words_per_cycle) if plan.statistics else 0


def _shifted(x: np.ndarray, shift: int, steps: int) -> np.ndarray:
    out = np.zeros(steps, dtype=np.int64)
    out[shift:shift + x.size] = x
    return out


def fast(plan: DLUPlan, max_cycles: int | None = None) -> DLUCounters:
    tiles, groups = plan.tiles, plan.groups
    count = tiles.rows.size
    outputs = tiles.rows * tiles.cols
    steps = count + 2
    load = _shifted(load_cycles(plan), 0, steps)
    compute = _shifted(tiles.chunk.astype(np.int64), 1, steps)
    stats = _shifted(stats_cycles(plan, outputs), 2, steps)
    write = _shifted(write_cycles(plan, outputs), 2, steps)
    busy = np.maximum(compute, stats)
    loaded = np.maximum(load, busy)
    step = np.maximum(loaded, write)
    readout = readout_cycles(plan)
    cycles = (int(step.sum()) + readout) * groups
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {cycles} cycles exceed max_cycles={max_cycles}")
    last = tiles.last_chunk
    return DLUCounters(
        cycles=cycles, compute_cycles=(int(busy.sum()) + readout) * groups,
        load_stall_cycles=int((loaded - busy).sum()) * groups, writeback_stall_cycles=int((step - loaded).sum()) * groups,
        readout_cycles=readout * groups, tiles=count * groups,
        macs=int((outputs * tiles.chunk).sum()) * groups,
        operand_reads=int(((tiles.rows + tiles.cols) * tiles.chunk).sum()) * groups,
        input_fill_words=int(tiles.input_words.sum()) * groups, weight_fill_words=int(tiles.weight_words.sum()) * groups,
        output_words=int(outputs[last].sum()) * groups,
        statistics_results=int(outputs[last].sum()) * groups if plan.statistics else 0,
        histogram_readouts=groups if plan.statistics else 0)
