"""Plan of a layer on the low-bit PE array (pure functions): precision, quantized operands, work.

Columns (output channels of every group, ``n x groups``) go to the ``pes`` PEs in passes of
``pes`` columns; within a pass a PE streams the ``m`` input rows of its column's group through
its datapath, ``ceil(elements / lanes)`` cycles per row, where ``elements`` is what one dot
product processes:

=============  ===========================================  ==========================
precision      elements of one column's dot product          lanes (elements / cycle)
=============  ===========================================  ==========================
binary         ``ceil(k / word_bits)`` packed words          1 word (XNOR + popcount)
ternary, log2  the column's non-zero weights (zeros skipped)  ``add_lanes``
int-k          ``k``                                         ``mult_lanes``
fp32           ``k``                                         ``fp_lanes``
=============  ===========================================  ==========================

A pass ends when its slowest PE is done (zero skipping makes PEs uneven), then the pipeline
drains: ``pipeline_depth`` = one operand stage (XNOR, shift / sign select, multiplier) + the
reduction tree (``ceil(log2(tree inputs))`` adder levels: the popcount tree of a word for binary,
else the lanes) + one scale stage for binary and ternary (alpha) + one for XNOR-Net's beta
(``activation_scale``) + one pool stage when the conv layer has a ``max_pool``.

Pooling in the output stage (a conv layer's ``max_pool``, as FINN's streaming max-pool unit pools
the output stream of the layer before it: Xilinx/finn-hlslib maxpool.h, StreamingMaxPool, a buffer
of one pooled row, each value compared into the running max of its window, an OR for binary
values): each column writes its ``pooled_h x pooled_w x batch`` pooled outputs instead of its
``m`` outputs (``written_rows``); every pooled output takes ``kernel x kernel`` compares
(``pool_window``, padding taps included as FINN starts each window at the minimum value). A
comparator for each window an output falls in keeps up with the one output a PE makes per cycle
at most, so the pool costs time only through its stage in the drain. With row tiles, tile ``t``
writes its share of the pooled rows (:func:`split`). A binary layer first binarizes and packs its inputs (summing |x| for
beta when asked), ``binarizer_width`` values per cycle. The scale multipliers take one output
per cycle, and a dot product takes at least one cycle, so they never limit throughput.

Memory (:mod:`.fast` and :mod:`.reference` time it): the layer's weights, input and output
live in DRAM in the stored format of its precision: binary weights and inputs packed one bit a
value into ``word_bits`` words (a column's ``k`` weights in ``ceil(k / word_bits)`` words, an
input pixel's channels of a group in ``ceil(C / word_bits)`` words), ternary 2 bits a weight,
log2 ``log2_bits``, int-k ``k``, fp32 32; inputs of ternary / log2 layers at ``activation_bits``.
A layer's own ``activation_bits`` (workload) overrides the stored input width: the previous
layer wrote its output wider (an fp32 first layer's output read by the first binary layer).
Outputs are written at :func:`output_bits`: a binary layer writes packed signs (batch norm and
sign folded into a threshold at the output, as BNN inference engines write bit-packed outputs
for the next binary layer), the others at their input width. The input is loaded into the
input buffer once when it fits (``input_fits``), else the plan picks the loop order that moves
fewer DRAM bytes (:func:`loop_order`; a tie keeps the column order):

- **column passes outer** (weight stationary): each pass of ``pes`` columns streams every row, so
  each pass reloads its groups' input; the weights are read once;
- **row tiles outer** (input streamed once, the order of FINN's streaming dataflow, whose sliding
  window unit reads each input pixel once while the weights stay on chip: Umuroglu et al., FINN,
  FPGA 2017): the ``m`` rows are cut into ``row_tiles`` tiles, as few as keep a tile's
  share of the input within ``input_buffer`` (``ceil(input / input_buffer)``, at most ``m``), and
  every column pass runs on one tile before the next tile loads; the input is read from DRAM once
  (tile ``t`` loads its share of it, :func:`split`: a conv's halo rows shared with the previous
  tile stay in the buffer, not counted against its capacity), the weights once when all of them fit
  ``weight_buffer`` (they stay resident, ``weights_resident``), else every tile reloads every pass's
  weights.

The zero-skipping work comes from the layer's quantized weights (:func:`nonzero_per_column`:
ternary = TWN, delta = 0.7 mean|W|; log2 = signed powers of two); the datapath's integers and
outputs are :mod:`.functional`'s.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.compress.quantization.binary_ternary import ternary_kept
from accel_sim.foundations.compress.quantization.uniform import quantize_log2
from accel_sim.foundations.errors import InputError
from accel_sim.models.lowbit.spec import LOWBIT_PRECISIONS, LowbitSpec
from accel_sim.foundations.workload.layer import Layer
from accel_sim.foundations.workload.operands import layer_operands, weight_matrix

SKIPPING = ("ternary", "log2")      # adders take non-zero weights only
SCALED = ("binary", "ternary")      # one alpha multiply per output
INT_BITS = {"int16": 16, "int8": 8, "int4": 4}
FP_BITS = 32
BITS_PER_BYTE = 8
TERNARY_PLANES = 2                  # a ternary weight: a non-zero bit and a sign bit


@dataclass(frozen=True)
class LowbitPlan:
    arch: ArchBase
    spec: LowbitSpec
    layer: Layer
    precision: str
    rows: int                      # m: input rows each PE streams per column
    reduction: int                 # k: reduction length of a dot product
    column_elements: np.ndarray    # (n x groups,) elements one dot product of each column processes
    lanes: int                     # elements the precision's datapath takes per cycle
    pipeline_depth: int            # cycles to drain a pass
    binarize_values: int           # activation values binarized before the layer (binary only)
    weight_bits: int               # bits of one stored weight
    input_bits: int                # bits of one stored input value
    nonzero_weights: int           # weights of the layer that are issued (all but skipped zeros)
    input_group_bits: int          # DRAM bits of one group's stored input (packed for binary)
    output_bits: int               # DRAM bits of one stored output value
    input_fits: bool               # the whole stored input fits the input buffer (loaded once)
    written_rows: int              # outputs each column writes: m, or its pooled outputs (max_pool)
    pool_window: int               # compares a pooled output takes (kernel x kernel); 0 without max_pool
    column_bits: int               # DRAM / weight-buffer bits of one column's stored weights
    row_tiles: int                 # 1: column passes outer; > 1: row tiles outer, the input streamed once
    weights_resident: bool         # row tiles outer and every weight fits the weight buffer (loaded once)
    operand_hashes: Mapping[str, str]


def layer_precision(spec: LowbitSpec, layer: Layer) -> str:
    precision = spec.precision if layer.precision is None else layer.precision
    if precision not in LOWBIT_PRECISIONS:
        raise InputError.single(layer.name, "precision", f"the lowbit array has no {precision} datapath; "
                                f"expected one of {', '.join(LOWBIT_PRECISIONS)}")
    if precision in INT_BITS and INT_BITS[precision] > spec.multiplier_bits:
        raise InputError.single(layer.name, "precision", f"{precision} is wider than lowbit.multiplier_bits "
                                f"{spec.multiplier_bits}")
    return precision


def stored_bits(spec: LowbitSpec, precision: str) -> tuple[int, int]:
    """Bits of one stored (weight, input) value."""
    if precision == "binary":
        return 1, 1
    if precision == "ternary":
        return TERNARY_PLANES, spec.activation_bits
    if precision == "log2":
        return spec.log2_bits, spec.activation_bits
    if precision in INT_BITS:
        return INT_BITS[precision], INT_BITS[precision]
    return FP_BITS, FP_BITS


def output_bits(spec: LowbitSpec, precision: str) -> int:
    """Bits of one output value as written to DRAM (binary: one packed sign)."""
    return 1 if precision == "binary" else stored_bits(spec, precision)[1]


def input_group_bits(spec: LowbitSpec, layer: Layer, precision: str) -> int:
    """DRAM bits of the stored input of one group of ``layer`` (binary 1-bit inputs packed by pixel)."""
    gemm = layer.gemm()
    width = stored_bits(spec, precision)[1] if layer.activation_bits is None else layer.activation_bits
    if precision != "binary" or width != 1:
        return layer.input_elements // gemm.groups * width
    if layer.kind == "conv":
        channels = layer.in_channels // layer.groups
        return layer.in_h * layer.in_w * layer.batch * -(-channels // spec.word_bits) * spec.word_bits
    return gemm.m * -(-gemm.k // spec.word_bits) * spec.word_bits


def datapath_lanes(spec: LowbitSpec, precision: str) -> int:
    if precision == "binary":
        return 1
    if precision in SKIPPING:
        return spec.add_lanes
    return spec.mult_lanes if precision in INT_BITS else spec.fp_lanes


def pipeline_depth(spec: LowbitSpec, precision: str, pooled: bool) -> int:
    tree_inputs = spec.word_bits if precision == "binary" else datapath_lanes(spec, precision)
    beta = 1 if precision == "binary" and spec.activation_scale else 0   # XNOR-Net's second scale
    return 1 + math.ceil(math.log2(tree_inputs)) + (1 if precision in SCALED else 0) + beta + (1 if pooled else 0)


def pooled_output(layer: Layer) -> tuple[int, int]:
    """``(outputs each column writes, compares per pooled output)``: a conv's max_pool pools in the output stage."""
    pool = getattr(layer, "max_pool", None)
    if pool is None:
        return layer.gemm().m, 0
    return pool.out(layer.out_h) * pool.out(layer.out_w) * layer.batch, pool.kernel * pool.kernel


def nonzero_per_column(layer: Layer, precision: str, spec: LowbitSpec) -> np.ndarray:
    """Non-zero ternary (TWN) or log2 weight codes of every GEMM-view column: the work a
    zero-skipping PE does (:mod:`.functional` turns the same codes into the datapath's integers)."""
    matrix = weight_matrix(layer, layer_operands(layer).weights)
    codes = ternary_kept(matrix) if precision == "ternary" else \
        quantize_log2(matrix.astype(np.float64), bits=spec.log2_bits).values
    return np.count_nonzero(codes, axis=0).astype(np.int64)


def split(total: int, parts: int) -> np.ndarray:
    """``total`` cut into ``parts`` near-equal integer shares that add up to it (tile ``t`` of ``parts``)."""
    ends = total * np.arange(1, parts + 1, dtype=np.int64) // parts
    return np.diff(ends, prepend=0)


def pass_groups(layer: Layer, columns: int, pes: int) -> np.ndarray:
    """Groups whose columns each pass of ``pes`` columns holds (its input rows come from each)."""
    n, passes = layer.gemm().n, -(-columns // pes)
    first = np.arange(passes, dtype=np.int64) * pes
    last = np.minimum(first + pes, columns) - 1
    return last // n - first // n + 1


def loop_order(spec: LowbitSpec, layer: Layer, column_bits: int, group_bits: int, fits: bool) -> tuple[int, bool]:
    """``(row_tiles, weights_resident)`` of the order that moves fewer DRAM bytes (the module's doc)."""
    gemm = layer.gemm()
    columns, inputs = gemm.n * gemm.groups, group_bits * gemm.groups
    tiles = -(-inputs // (spec.input_buffer * BITS_PER_BYTE))
    if fits or tiles > gemm.m:        # loaded once anyway, or a tile would be less than one row
        return 1, False
    weights = columns * column_bits
    resident = weights <= spec.weight_buffer * BITS_PER_BYTE
    by_columns = weights + int(pass_groups(layer, columns, spec.pes).sum()) * group_bits
    by_rows = inputs + weights * (1 if resident else tiles)
    return (tiles, resident) if by_rows < by_columns else (1, False)


def plan(arch: ArchBase, layer: Layer) -> LowbitPlan:
    spec: LowbitSpec = arch.section("lowbit")
    precision = layer_precision(spec, layer)
    gemm = layer.gemm()
    columns = gemm.n * gemm.groups
    if precision in SKIPPING:
        per_column = nonzero_per_column(layer, precision, spec)
    elif precision == "binary":
        per_column = np.full(columns, -(-gemm.k // spec.word_bits), dtype=np.int64)
    else:
        per_column = np.full(columns, gemm.k, dtype=np.int64)
    nonzero = int(per_column.sum()) if precision in SKIPPING else gemm.k * columns
    weight_bits, input_bits = stored_bits(spec, precision)
    binarize = gemm.m * gemm.k * gemm.groups if precision == "binary" else 0
    group_bits = input_group_bits(spec, layer, precision)
    fits = group_bits * gemm.groups <= spec.input_buffer * BITS_PER_BYTE
    words = -(-gemm.k // spec.word_bits)
    column_bits = words * spec.word_bits if precision == "binary" else gemm.k * weight_bits
    tiles, resident = loop_order(spec, layer, column_bits, group_bits, fits)
    written, window = pooled_output(layer)
    return LowbitPlan(arch, spec, layer, precision, gemm.m, gemm.k, per_column, datapath_lanes(spec, precision),
                      pipeline_depth(spec, precision, window > 0), binarize, weight_bits, input_bits, nonzero,
                      group_bits, output_bits(spec, precision), fits, written, window, column_bits, tiles, resident,
                      layer_operands(layer).hashes)
