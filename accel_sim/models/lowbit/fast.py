"""Fast path: the low-bit array in closed form, vectorised over columns and passes.

Column ``j`` keeps its PE busy ``m x ceil(elements_j / lanes)`` cycles; a pass of ``pes``
columns lasts as long as its busiest PE, then drains ``pipeline_depth`` cycles. A binary layer
first spends ``ceil(m k groups / binarizer_width)`` cycles binarizing its inputs.
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.lowbit.counters import LowbitCounters
from accel_sim.models.lowbit.plan import INT_BITS, SCALED, SKIPPING, LowbitPlan


def _pass_busy(busy: np.ndarray, pes: int) -> np.ndarray:
    passes = -(-busy.size // pes)
    padded = np.zeros(passes * pes, dtype=np.int64)
    padded[:busy.size] = busy
    return padded.reshape(passes, pes)


def _input_read_bits(plan: LowbitPlan, passes: int, row_bits: int) -> int:
    """Each pass broadcasts the rows of every group its columns belong to."""
    n, columns, pes = plan.layer.gemm().n, plan.column_elements.size, plan.spec.pes
    first = np.arange(passes, dtype=np.int64) * pes
    last = np.minimum(first + pes, columns) - 1
    return int((last // n - first // n + 1).sum()) * plan.rows * row_bits


def fast(plan: LowbitPlan, max_cycles: int | None = None) -> LowbitCounters:
    spec, precision, rows, k = plan.spec, plan.precision, plan.rows, plan.reduction
    elements = plan.column_elements
    busy = rows * -(-elements // plan.lanes)
    grid = _pass_busy(busy, spec.pes)
    pass_busy = grid.max(axis=1)
    passes = int(pass_busy.size)
    binarize = -(-plan.binarize_values // spec.binarizer_width)
    compute = int(pass_busy.sum())
    drain = passes * plan.pipeline_depth
    cycles = binarize + compute + drain
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {cycles} cycles exceed max_cycles={max_cycles}")
    columns = int(elements.size)
    processed = rows * int(elements.sum())
    dense = rows * k * columns
    binary = precision == "binary"
    words = -(-k // spec.word_bits)
    row_bits = words * spec.word_bits if binary else k * plan.input_bits
    column_bits = words * spec.word_bits if binary else k * plan.weight_bits
    issued = rows * plan.nonzero_weights
    beta = binary and spec.activation_scale
    return LowbitCounters(
        cycles=cycles, binarize_cycles=binarize, compute_cycles=compute, drain_cycles=drain,
        idle_pe_cycles=int((pass_busy[:, None] - grid).sum()), passes=passes,
        xnor_words=processed if binary else 0,
        adds=processed if precision in SKIPPING else 0,
        shifts=processed if precision == "log2" else 0,
        mults=dense if precision in INT_BITS else 0,
        fp_macs=dense if precision == "fp32" else 0,
        macs_issued=issued, macs_skipped=dense - issued,
        scale_mults=rows * columns * ((precision in SCALED) + beta),
        beta_adds=plan.binarize_values if beta else 0,
        outputs=rows * columns,
        binarized_words=plan.binarize_values // k * words if binary else 0,
        weight_read_bits=columns * column_bits,
        input_read_bits=_input_read_bits(plan, passes, row_bits))
