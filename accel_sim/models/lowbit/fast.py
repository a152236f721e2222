"""Fast path: the low-bit array in closed form, vectorised over columns and passes.

Column ``j`` keeps its PE busy ``r x ceil(elements_j / lanes)`` cycles on a tile of ``r`` rows
(all ``m`` rows when the plan keeps one tile); a pass of ``pes`` columns on a tile lasts as long
as its busiest PE, then drains ``pipeline_depth`` cycles. Passes run tile by tile (every column
pass of tile 0, then of tile 1, ...). A binary layer first spends ``ceil(m k groups /
binarizer_width)`` cycles binarizing its inputs.

Memory, double-buffered over passes on one DRAM channel: the first pass's load (its weights and
its input) comes before the binarizer; while pass ``p`` computes and drains, the channel moves
pass ``p + 1``'s load and pass ``p - 1``'s outputs as one burst, and the step lasts as long as
the longer of the two; the last pass's outputs are written back at the end. A pass loads its
columns' weights (with resident weights only on the first tile) and, with one tile, its groups'
input (all of it on the first pass when it fits); with row tiles the first pass of a tile loads
the tile's share of the input. A pass writes its columns' outputs (pooled, with a ``max_pool``:
each tile its share of the pooled rows). A transfer of
``b`` bits takes ``ceil(b / 8 / dram_bandwidth)`` cycles plus ``dram.latency`` (none when empty).
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.lowbit.counters import LowbitCounters
from accel_sim.models.lowbit.plan import INT_BITS, SCALED, SKIPPING, LowbitPlan, pass_groups, split


def _pass_busy(busy: np.ndarray, pes: int) -> np.ndarray:
    passes = -(-busy.size // pes)
    padded = np.zeros(passes * pes, dtype=np.int64)
    padded[:busy.size] = busy
    return padded.reshape(passes, pes)


def _pass_groups(plan: LowbitPlan) -> np.ndarray:
    return pass_groups(plan.layer, plan.column_elements.size, plan.spec.pes)


def _input_read_bits(plan: LowbitPlan, row_bits: int) -> int:
    """Each pass broadcasts its tile's rows of every group its columns belong to (all tiles: every row)."""
    return int(_pass_groups(plan).sum()) * plan.rows * row_bits


def _transfer_cycles(plan: LowbitPlan, bits: np.ndarray) -> np.ndarray:
    cycles = np.ceil(bits / 8 / plan.spec.dram_bandwidth).astype(np.int64)
    return np.where(bits > 0, cycles + plan.arch.dram.latency, 0)


def _memory(plan: LowbitPlan, passes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weight bits, input bits, output bits) each pass of each tile moves, tile by tile."""
    columns, tiles = plan.column_elements.size, plan.row_tiles
    pass_columns = np.minimum(columns - np.arange(passes, dtype=np.int64) * plan.spec.pes, plan.spec.pes)
    weights = np.tile(pass_columns * plan.column_bits, (tiles, 1))
    if plan.weights_resident:
        weights[1:] = 0
    inputs = np.zeros((tiles, passes), dtype=np.int64)
    if tiles > 1:
        inputs[:, 0] = split(plan.input_group_bits * plan.layer.gemm().groups, tiles)
    elif plan.input_fits:
        inputs[0, 0] = plan.input_group_bits * plan.layer.gemm().groups
    else:
        inputs[0] = _pass_groups(plan) * plan.input_group_bits
    outputs = split(plan.written_rows, tiles)[:, None] * pass_columns[None, :] * plan.output_bits
    return weights.ravel(), inputs.ravel(), outputs.ravel()


def fast(plan: LowbitPlan, max_cycles: int | None = None) -> LowbitCounters:
    spec, precision, rows, k = plan.spec, plan.precision, plan.rows, plan.reduction
    elements = plan.column_elements
    row_grid = _pass_busy(-(-elements // plan.lanes), spec.pes)          # one row's cycles, (pass, PE)
    tile_rows = split(rows, plan.row_tiles)
    grid = (tile_rows[:, None, None] * row_grid[None]).reshape(-1, spec.pes)   # (tile x pass, PE)
    pass_busy = grid.max(axis=1)
    binarize = -(-plan.binarize_values // spec.binarizer_width)
    compute = int(pass_busy.sum())
    drain = int(pass_busy.size) * plan.pipeline_depth
    binary = precision == "binary"
    words = -(-k // spec.word_bits)
    row_bits = words * spec.word_bits if binary else k * plan.input_bits
    weights, inputs, outputs = _memory(plan, row_grid.shape[0])
    loads = weights + inputs
    moves = np.append(loads[1:], 0) + np.insert(outputs[:-1], 0, 0)
    first, last = _transfer_cycles(plan, loads[:1]), _transfer_cycles(plan, outputs[-1:])
    steps = np.maximum(pass_busy + plan.pipeline_depth, _transfer_cycles(plan, moves))
    cycles = int(first[0]) + binarize + int(steps.sum()) + int(last[0])
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {cycles} cycles exceed max_cycles={max_cycles}")
    busy_bits = np.concatenate([loads[:1], moves, outputs[-1:]])
    dram_busy = int(np.ceil(busy_bits / 8 / spec.dram_bandwidth).astype(np.int64).sum())
    columns = int(elements.size)
    processed = rows * int(elements.sum())
    dense = rows * k * columns
    issued = rows * plan.nonzero_weights
    beta = binary and spec.activation_scale
    return LowbitCounters(
        cycles=cycles, binarize_cycles=binarize, compute_cycles=compute, drain_cycles=drain,
        idle_pe_cycles=int((pass_busy[:, None] - grid).sum()), passes=int(pass_busy.size), row_tiles=plan.row_tiles,
        xnor_words=processed if binary else 0,
        adds=processed if precision in SKIPPING else 0,
        shifts=processed if precision == "log2" else 0,
        mults=dense if precision in INT_BITS else 0,
        fp_macs=dense if precision == "fp32" else 0,
        macs_issued=issued, macs_skipped=dense - issued,
        scale_mults=rows * columns * ((precision in SCALED) + beta),
        beta_adds=plan.binarize_values if beta else 0,
        outputs=rows * columns, pool_compares=plan.written_rows * columns * plan.pool_window,
        binarized_words=plan.binarize_values // k * words if binary else 0,
        weight_read_bits=plan.row_tiles * columns * plan.column_bits,
        input_read_bits=_input_read_bits(plan, row_bits),
        dram_read_bits=int(loads.sum()), dram_write_bits=int(outputs.sum()), dram_busy_cycles=dram_busy,
        memory_stall_cycles=cycles - binarize - compute - drain,
        weight_buffer_write_bits=int(weights.sum()), input_buffer_write_bits=int(inputs.sum()),
        output_buffer_write_bits=int(outputs.sum()), output_buffer_read_bits=int(outputs.sum()))
