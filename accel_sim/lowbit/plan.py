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
(``activation_scale``). A binary layer first binarizes and packs its inputs (summing |x| for
beta when asked), ``binarizer_width`` values per cycle. The scale multipliers take one output
per cycle, and a dot product takes at least one cycle, so they never limit throughput.

Operands are quantized here (:func:`weight_codes`, :func:`input_codes`), with the project's
quantizers: binary = XNOR-Net sign with a per-filter alpha, ternary = TWN (delta = 0.7
mean|W|), log2 = signed powers of two, int-k = symmetric uniform.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from accel_sim.arch.spec import ArchSpec
from accel_sim.compress.quantization.binary_ternary import quantize_binary, quantize_ternary
from accel_sim.compress.quantization.uniform import quantize_log2, quantize_uniform
from accel_sim.errors import InputError
from accel_sim.lowbit.spec import LOWBIT_PRECISIONS, LowbitSpec
from accel_sim.workload.layer import ConvLayer, Layer
from accel_sim.workload.operands import layer_operands, weight_matrix

SKIPPING = ("ternary", "log2")      # adders take non-zero weights only
SCALED = ("binary", "ternary")      # one alpha multiply per output
INT_BITS = {"int16": 16, "int8": 8, "int4": 4}
FP_BITS = 32
TERNARY_PLANES = 2                  # a ternary weight: a non-zero bit and a sign bit


@dataclass(frozen=True)
class LowbitPlan:
    arch: ArchSpec
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


def datapath_lanes(spec: LowbitSpec, precision: str) -> int:
    if precision == "binary":
        return 1
    if precision in SKIPPING:
        return spec.add_lanes
    return spec.mult_lanes if precision in INT_BITS else spec.fp_lanes


def pipeline_depth(spec: LowbitSpec, precision: str) -> int:
    tree_inputs = spec.word_bits if precision == "binary" else datapath_lanes(spec, precision)
    beta = 1 if precision == "binary" and spec.activation_scale else 0   # XNOR-Net's second scale
    return 1 + math.ceil(math.log2(tree_inputs)) + (1 if precision in SCALED else 0) + beta


def weight_codes(layer: Layer, precision: str, spec: LowbitSpec) -> tuple[np.ndarray, np.ndarray]:
    """The GEMM-view weights ``(k, n x groups)`` as the datapath's integers, and the per-column
    scale that turns an integer accumulator into the real output.

    binary: -1 / +1 (alpha per filter); ternary: -1 / 0 / +1 (one alpha); log2: sign x 2^e with
    ``e >= 0`` counted from the smallest exponent (scale 2^min_exponent); int-k: levels; fp32: the
    float weights (scale 1)."""
    matrix = weight_matrix(layer, layer_operands(layer).weights).astype(np.float64)
    columns = matrix.shape[1]
    if precision == "binary":
        q = quantize_binary(matrix, axis=1)
        return q.values, np.broadcast_to(q.scale.reshape(-1), (columns,)).astype(np.float64)
    if precision == "ternary":
        q = quantize_ternary(matrix)
        return q.values, np.full(columns, float(q.scale.reshape(-1)[0]))
    if precision == "log2":
        q = quantize_log2(matrix, bits=spec.log2_bits)
        n_exponents = (1 << (spec.log2_bits - 1)) - 1
        codes = q.values
        magnitude = np.where(codes == 0, 0, np.left_shift(1, (codes - 1) % n_exponents))
        sign = np.where(codes > n_exponents, -1, 1)
        smallest = float(q.codebook[1])  # 2^min_exponent
        return sign * magnitude, np.full(columns, smallest)
    if precision in INT_BITS:
        q = quantize_uniform(matrix, bits=INT_BITS[precision])
        return q.values, np.full(columns, float(np.reshape(q.scale, -1)[0]))
    return matrix, np.ones(columns)


def im2col(layer: Layer, inputs: np.ndarray) -> np.ndarray:
    """The GEMM-view inputs ``(groups, m, k)``: conv patches (channel, kernel row, kernel column
    order, matching :func:`weight_matrix`) or the GEMM input."""
    if not isinstance(layer, ConvLayer):
        return inputs[None]
    padded = np.pad(inputs, ((0, 0), (0, 0), (layer.pad_top, layer.pad_bottom), (layer.pad_left, layer.pad_right)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (layer.kernel_h, layer.kernel_w), axis=(2, 3))
    windows = windows[:, :, ::layer.stride_h, ::layer.stride_w][:, :, :layer.out_h, :layer.out_w]
    cg = layer.in_channels // layer.groups
    groups = [windows[:, g * cg:(g + 1) * cg].transpose(0, 2, 3, 1, 4, 5).reshape(-1, cg * layer.kernel_h
                                                                                     * layer.kernel_w)
              for g in range(layer.groups)]
    return np.stack(groups)


def input_codes(layer: Layer, precision: str, spec: LowbitSpec) -> tuple[np.ndarray, float | np.ndarray]:
    """The GEMM-view inputs ``(groups, m, k)`` as the datapath's integers and their scale:
    binary: sign (0 -> +1, as the weights), scale 1 or, with ``activation_scale``, each row's
    mean |x| (XNOR-Net's beta, shape ``(groups, m, 1)``); ternary / log2: ``activation_bits``
    symmetric levels; int-k: k-bit levels; fp32: the floats."""
    x = im2col(layer, np.asarray(layer_operands(layer).inputs, dtype=np.float64))
    if precision == "binary":
        beta = np.mean(np.abs(x), axis=2, keepdims=True) if spec.activation_scale else 1.0
        return np.where(x >= 0, 1, -1).astype(np.int64), beta
    if precision == "fp32":
        return x, 1.0
    bits = INT_BITS.get(precision, spec.activation_bits)
    q = quantize_uniform(x, bits=bits)
    return q.values, float(np.reshape(q.scale, -1)[0])


def plan(arch: ArchSpec, layer: Layer) -> LowbitPlan:
    spec: LowbitSpec = arch.section("lowbit")
    precision = layer_precision(spec, layer)
    gemm = layer.gemm()
    columns = gemm.n * gemm.groups
    if precision in SKIPPING:
        per_column = np.count_nonzero(weight_codes(layer, precision, spec)[0], axis=0).astype(np.int64)
    elif precision == "binary":
        per_column = np.full(columns, -(-gemm.k // spec.word_bits), dtype=np.int64)
    else:
        per_column = np.full(columns, gemm.k, dtype=np.int64)
    nonzero = int(per_column.sum()) if precision in SKIPPING else gemm.k * columns
    weight_bits, input_bits = stored_bits(spec, precision)
    binarize = gemm.m * gemm.k * gemm.groups if precision == "binary" else 0
    return LowbitPlan(arch, spec, layer, precision, gemm.m, gemm.k, per_column, datapath_lanes(spec, precision),
                      pipeline_depth(spec, precision), binarize, weight_bits, input_bits, nonzero,
                      layer_operands(layer).hashes)
