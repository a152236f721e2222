"""Streaming operand fetch, fast path (``systolic.operand_fetch: streaming``): numpy per fold, one
max-plus pass over the folds.

Per read operand the blocks each fold uses come from index arithmetic (the fold's extent along
each of the operand's GEMM dimensions); a block is fetched when it is new to the buffer (resident
operand: first use; otherwise: a different block than the fold before). The pass then runs the
recurrences of a two-stage pipeline per operand stream::

    load_end[j]  = max(load_end[j-1], free[j]) + ceil(words / bandwidth)      (fetch j of the stream)
    free[j]      = end of the last fold using the block of fetch j-2  (0 when resident or j < 2)
    start[f]     = max(end[f-1], load_end + latency of each block fetched for fold f)
    end[f]       = start[f] + fold_lines
    drain[f]     = max(drain[f-1], end[f]) + ceil(final outputs of fold f / drain width)

and ``cycles = drain[last]``, which is at least ``end[last]``: the last fold always completes
outputs (SCALE-Sim's "Total Cycles" counts to the last output write as well).
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.models.systolic.counters import SystolicCounters
from accel_sim.models.systolic.plan import SystolicPlan
from accel_sim.models.systolic.plan.mapping import SystolicMapping
from accel_sim.models.systolic.plan.operands import READ_OPERANDS
from accel_sim.models.systolic.plan.streaming import OPERAND_DIMS, OUTPUT_DIMS, REDUCTION_DIM


def _fold_index(mapping: SystolicMapping) -> tuple[np.ndarray, np.ndarray]:
    """Row-fold and column-fold number of each fold, in run order (column folds outer)."""
    fold = np.arange(mapping.folds)
    return fold % mapping.row_folds, fold // mapping.row_folds


def _extent(mapping: SystolicMapping, dim: str, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Each fold's extent along GEMM dimension ``dim``."""
    flow = mapping.dataflow
    if dim == flow.rows_dim:
        return np.minimum(mapping.rows, mapping.sr - r * mapping.rows)
    if dim == flow.cols_dim:
        return np.minimum(mapping.cols, mapping.sc - c * mapping.cols)
    return np.full(r.shape, mapping.t)


def fetched_words(plan: SystolicPlan, operand: str) -> np.ndarray:
    """Words of ``operand`` fetched from DRAM before each fold (0: its block is already held)."""
    mapping = plan.mapping
    r, c = _fold_index(mapping)
    dims = OPERAND_DIMS[operand]
    flow = mapping.dataflow
    block = (r if flow.rows_dim in dims else 0) * mapping.col_folds + (c if flow.cols_dim in dims else 0)
    block = np.broadcast_to(block, r.shape)
    if plan.resident[operand]:
        new = np.zeros(r.shape, dtype=bool)
        new[np.unique(block, return_index=True)[1]] = True
    else:
        new = np.ones(r.shape, dtype=bool)
        new[1:] = block[1:] != block[:-1]
    words = _extent(mapping, dims[0], r, c) * _extent(mapping, dims[1], r, c)
    return np.where(new, words, 0)


def final_output_words(mapping: SystolicMapping) -> np.ndarray:
    """Outputs each fold completes: all its outputs when the reduction is temporal (OS), else
    those of the last row fold."""
    r, c = _fold_index(mapping)
    words = _extent(mapping, OUTPUT_DIMS[0], r, c) * _extent(mapping, OUTPUT_DIMS[1], r, c)
    if mapping.dataflow.temporal_dim == REDUCTION_DIM:
        return words
    return np.where(r == mapping.row_folds - 1, words, 0)


def output_block_words(mapping: SystolicMapping) -> int:
    """Outputs or partial sums the array writes into the ofmap buffer over one group."""
    r, c = _fold_index(mapping)
    return int((_extent(mapping, OUTPUT_DIMS[0], r, c) * _extent(mapping, OUTPUT_DIMS[1], r, c)).sum())


def _group_times(plan: SystolicPlan, words: dict[str, np.ndarray], outputs: np.ndarray) -> tuple[int, int]:
    """(end of the last fold, end of the last drain) of one group."""
    bandwidth, latency = plan.dram_words_per_cycle, plan.arch.dram.latency
    lines = plan.mapping.fold_lines
    ends: list[int] = []
    load_end = dict.fromkeys(READ_OPERANDS, 0)
    fetch_folds: dict[str, list[int]] = {op: [] for op in READ_OPERANDS}
    per_fold = {op: words[op].tolist() for op in READ_OPERANDS}
    end = drain = 0
    for fold, out in enumerate(outputs.tolist()):
        start = end
        for op in READ_OPERANDS:
            w = per_fold[op][fold]
            if not w:
                continue
            folds = fetch_folds[op]
            free = ends[folds[-1] - 1] if len(folds) >= 2 and not plan.resident[op] else 0
            load_end[op] = max(load_end[op], free) + math.ceil(w / bandwidth)
            folds.append(fold)
            start = max(start, load_end[op] + latency)
        end = start + lines
        ends.append(end)
        if out:
            drain = max(drain, end) + math.ceil(out / plan.ofmap_line_words)
    return end, drain


def streaming_fast(plan: SystolicPlan, reads: dict[str, int]) -> SystolicCounters:
    """Counters of the layer (every group alike, one after the other); ``reads``: the words the
    array takes from each read buffer over one group (the same as SCALE-Sim's)."""
    mapping = plan.mapping
    groups = mapping.groups
    words = {op: fetched_words(plan, op) for op in READ_OPERANDS}
    outputs = final_output_words(mapping)
    end, drain = _group_times(plan, words, outputs)
    cycles = drain  # the last fold always completes outputs (last row fold), drained after it ends
    compute = mapping.group_compute_cycles
    return SystolicCounters(
        cycles=cycles * groups, compute_cycles=compute * groups, read_stall_cycles=(end - 1 - compute) * groups,
        write_stall_cycles=(cycles - (end - 1)) * groups, cycles_incl_prefetch=cycles * groups,
        folds=mapping.folds * groups, macs_issued=mapping.macs_issued_per_group * groups,
        ifmap_sram_reads=reads["ifmap"] * groups, filter_sram_reads=reads["filter"] * groups,
        ofmap_sram_writes=output_block_words(mapping) * groups,
        ifmap_dram_reads=int(words["ifmap"].sum()) * groups, filter_dram_reads=int(words["filter"].sum()) * groups,
        ofmap_dram_writes=int(outputs.sum()) * groups,
        nm_metadata_reads=mapping.kept_weights_per_group * groups if plan.metadata_bits else 0)
