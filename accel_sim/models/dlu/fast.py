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
from collections.abc import Iterator

import numpy as np

from accel_sim.models.dlu.counters import DLUCounters
from accel_sim.models.dlu.plan import DLUPlan, TileWork, bytes_of, tile_chunks
from accel_sim.foundations.errors import SimulationError


def _bandwidth(plan: DLUPlan) -> float | None:
    """DRAM bytes per cycle per stream; None: an ideal DRAM (``calc`` mode)."""
    dram = plan.arch.dram
    return dram.bandwidth if dram.bandwidth_mode == "user" else None


def load_cycles(plan: DLUPlan, tiles: TileWork) -> np.ndarray:
    bits, bandwidth = plan.spec.bits, _bandwidth(plan)
    inputs, weights = bytes_of(tiles.input_words, bits), bytes_of(tiles.weight_words, plan.stored_weight_bits)
    if bandwidth is None:
        return np.zeros_like(inputs)
    largest = np.maximum(inputs, weights)
    return np.where(largest > 0, plan.arch.dram.latency + np.ceil(largest / bandwidth).astype(np.int64),
                    0)  # a tile whose operands are all on chip loads nothing, not even the latency


def stats_cycles(plan: DLUPlan, tiles: TileWork, outputs: np.ndarray) -> np.ndarray:
    if not plan.statistics:
        return np.zeros_like(outputs)
    spec = plan.spec
    per_unit = -(-outputs // spec.processing_units)
    return np.where(tiles.last_chunk, spec.stats_latency + -(-per_unit // spec.stats_results_per_cycle), 0)


def write_cycles(plan: DLUPlan, tiles: TileWork, outputs: np.ndarray) -> np.ndarray:
    out_bytes, bandwidth = bytes_of(outputs, plan.spec.bits), _bandwidth(plan)
    if bandwidth is None:
        return np.zeros_like(out_bytes)
    return np.where(tiles.last_chunk, np.ceil(out_bytes / bandwidth).astype(np.int64), 0)


def readout_cycles(plan: DLUPlan) -> int:
    """Cycles to read every histogram counter out, ``readout_words_per_cycle`` at a time."""
    return math.ceil(plan.histogram_counters / plan.spec.readout_words_per_cycle) if plan.statistics else 0


CHUNK_TILES = 1 << 16   # tiles summed per numpy pass (a speed setting: the arrays of one pass stay in cache)
LAG = 2   # the drain works on the tile of two steps before (the array on the tile of one step before)
SUMS = ("step", "busy", "load_stall", "writeback_stall", "tiles", "macs", "operand_reads", "input_fill_words",
        "weight_fill_words", "output_words")


def _steps(plan: DLUPlan, tiles: TileWork, behind: np.ndarray, drain: bool) -> tuple[dict[str, int], np.ndarray]:
    """The sums of ``tiles``' steps (step ``s`` loads tile ``s``, computes tile ``s - 1``, drains tile
    ``s - 2``) and the (compute, stats, write) cycles of the last two tiles, the next steps' ``behind``
    (``behind``: those of the two tiles before these, (3, LAG)); ``drain``: the last tiles, so also the
    ``LAG`` steps after them that only compute and drain."""
    outputs = tiles.rows * tiles.cols
    count = tiles.rows.size
    steps = count + (LAG if drain else 0)
    lagged = np.zeros((3, LAG + steps), dtype=np.int64)
    lagged[:, :LAG] = behind
    lagged[0, LAG:LAG + count] = tiles.chunk
    lagged[1, LAG:LAG + count] = stats_cycles(plan, tiles, outputs)
    lagged[2, LAG:LAG + count] = write_cycles(plan, tiles, outputs)
    compute, stats, write = lagged[0, LAG - 1:LAG - 1 + steps], lagged[1, :steps], lagged[2, :steps]
    busy = np.maximum(compute, stats)
    load = load_cycles(plan, tiles)
    loaded = np.maximum(np.pad(load, (0, steps - count)) if drain else load, busy)
    step = np.maximum(loaded, write)
    last = tiles.last_chunk
    sums = {"step": int(step.sum()), "busy": int(busy.sum()), "load_stall": int((loaded - busy).sum()),
            "writeback_stall": int((step - loaded).sum()), "tiles": count,
            "macs": int((outputs * tiles.chunk).sum()), "operand_reads": int(((tiles.rows + tiles.cols) * tiles.chunk).sum()),
            "input_fill_words": int(tiles.input_words.sum()), "weight_fill_words": int(tiles.weight_words.sum()),
            "output_words": int(outputs[last].sum())}
    return sums, lagged[:, count:count + LAG]   # tile i is column LAG + i


def _passes(plan: DLUPlan) -> Iterator[tuple[TileWork, bool]]:
    """The tiles in passes, each with whether it is the last: the plan's (cached) whole list when it holds at
    most :data:`CHUNK_TILES` tiles, else :func:`~accel_sim.models.dlu.plan.tile_chunks` (the arrays of one pass stay
    in cache)."""
    t = plan.tiling
    if t.row_blocks * t.col_blocks * t.chunks <= CHUNK_TILES:
        yield plan.tiles, True
        return
    chunks = tile_chunks(t, CHUNK_TILES)
    previous = next(chunks)
    for tiles in chunks:
        yield previous, False
        previous = tiles
    yield previous, True


def fast(plan: DLUPlan, max_cycles: int | None = None) -> DLUCounters:
    """One group's steps summed pass by pass (:func:`_passes`), the pipeline's two-step lag carried from
    pass to pass; the last pass also counts the ``LAG`` steps that only drain."""
    groups, readout = plan.groups, readout_cycles(plan)
    total = dict.fromkeys(SUMS, 0)
    behind = np.zeros((3, LAG), dtype=np.int64)
    for tiles, drain in _passes(plan):
        sums, behind = _steps(plan, tiles, behind, drain)
        for name, value in sums.items():
            total[name] += value
        if max_cycles is not None and (total["step"] + readout) * groups > max_cycles:
            raise SimulationError(f"{plan.layer.name}: at least {(total['step'] + readout) * groups} cycles "
                                  f"exceed max_cycles={max_cycles}")
    count = total["tiles"]
    return DLUCounters(
        cycles=(total["step"] + readout) * groups, compute_cycles=(total["busy"] + readout) * groups,
        load_stall_cycles=total["load_stall"] * groups, writeback_stall_cycles=total["writeback_stall"] * groups,
        readout_cycles=readout * groups, tiles=count * groups, macs=total["macs"] * groups,
        operand_reads=total["operand_reads"] * groups, input_fill_words=total["input_fill_words"] * groups,
        weight_fill_words=total["weight_fill_words"] * groups, output_words=total["output_words"] * groups,
        statistics_results=total["output_words"] * groups if plan.statistics else 0,
        histogram_readouts=groups if plan.statistics else 0)
