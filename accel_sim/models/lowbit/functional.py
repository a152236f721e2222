"""The outputs of a layer computed with the low-bit datapath's own arithmetic (pure numpy).

- :func:`binary_gemm`: operands packed into ``word_bits`` words (``np.packbits``, one bit per
  value, 1 = +1), XNOR word by word, popcount, ``dot = 2 x matches - k`` (padding bits of the
  last word masked out, as the hardware does);
- :func:`skip_zero_gemm`: ternary and log2 weights as a list of the non-zero weights of every
  column (the zero-skipping PE never sees a zero), each adding or subtracting the activation
  shifted left by its exponent (ternary: exponent 0);
- :func:`int_gemm`: k-bit products accumulated in a ``accumulator_bits`` two's-complement
  register that wraps on overflow.

Operands become the datapath's integers with the project's quantizers (:func:`weight_codes`,
:func:`input_codes`): binary = XNOR-Net sign with a per-filter alpha, ternary = TWN (delta =
0.7 mean|W|), log2 = signed powers of two, int-k = symmetric uniform. Tests compare each GEMM
with a plain numpy product of the same integers (a separate code path).
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.compress.quantization.binary_ternary import quantize_binary, quantize_ternary
from accel_sim.foundations.compress.quantization.uniform import quantize_log2, quantize_uniform
from accel_sim.models.lowbit.plan import INT_BITS, SKIPPING, LowbitPlan
from accel_sim.models.lowbit.spec import LowbitSpec
from accel_sim.foundations.workload.layer import ConvLayer, Layer
from accel_sim.foundations.workload.operands import layer_operands, weight_matrix

BYTE_BITS = 8


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


def pack_signs(values: np.ndarray, word_bits: int) -> np.ndarray:
    """``(rows, k)`` of -1 / +1 -> ``(rows, words)`` uint64 words (bit 1 = +1), zero-padded."""
    if word_bits % BYTE_BITS or not 0 < word_bits <= 64:
        raise ValueError(f"word_bits must be a multiple of 8 up to 64, got {word_bits}")
    rows, k = values.shape
    words = -(-k // word_bits)
    bits = np.zeros((rows, words * word_bits), dtype=np.uint8)
    bits[:, :k] = values > 0
    packed = np.packbits(bits, axis=1, bitorder="little").reshape(rows, words, word_bits // BYTE_BITS)
    padded = np.zeros((rows, words, 8), dtype=np.uint8)
    padded[:, :, :word_bits // BYTE_BITS] = packed
    return padded.view("<u8").reshape(rows, words)


def binary_gemm(inputs: np.ndarray, weights: np.ndarray, word_bits: int = 64) -> np.ndarray:
    """``(m, k) x (k, n)`` of -1 / +1 -> int64 ``(m, n)`` by XNOR + popcount of packed words."""
    k = inputs.shape[1]
    a, w = pack_signs(inputs, word_bits), pack_signs(weights.T, word_bits)
    words = a.shape[1]
    valid = np.full(words, np.uint64((1 << word_bits) - 1) if word_bits < 64 else np.uint64(~np.uint64(0)))
    tail = k - (words - 1) * word_bits
    valid[-1] = np.uint64((1 << tail) - 1) if tail < 64 else np.uint64(~np.uint64(0))
    matches = np.zeros((a.shape[0], w.shape[0]), dtype=np.int64)
    for word in range(words):   # one word pair per cycle in a PE; vectorised over rows and columns
        xnor = ~(a[:, word, None] ^ w[None, :, word]) & valid[word]
        matches += np.bitwise_count(xnor).astype(np.int64)
    return 2 * matches - k


def skip_zero_gemm(inputs: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``(m, k)`` integers x ``(k, n)`` of ``sign x 2^e`` or 0 -> int64 ``(m, n)``: each column
    walks its non-zero weights only, adding or subtracting the activation shifted by ``e``."""
    inputs = inputs.astype(np.int64)
    out = np.zeros((inputs.shape[0], weights.shape[1]), dtype=np.int64)
    for column in range(weights.shape[1]):
        rows = np.flatnonzero(weights[:, column])
        w = weights[rows, column].astype(np.int64)
        shifts = np.log2(np.abs(w)).astype(np.int64)
        shifted = np.left_shift(inputs[:, rows], shifts)
        out[:, column] = np.where(w > 0, shifted, -shifted).sum(axis=1)
    return out


def wrap(values: np.ndarray, bits: int) -> np.ndarray:
    """Two's-complement wrap of int64 values to ``bits`` bits."""
    half = 1 << (bits - 1)
    return ((values + half) & ((1 << bits) - 1)) - half


def int_gemm(inputs: np.ndarray, weights: np.ndarray, accumulator_bits: int) -> np.ndarray:
    """k-bit integer products accumulated one reduction step at a time in a wrapping register."""
    inputs, weights = inputs.astype(np.int64), weights.astype(np.int64)
    acc = np.zeros((inputs.shape[0], weights.shape[1]), dtype=np.int64)
    for step in range(inputs.shape[1]):
        acc = wrap(acc + np.outer(inputs[:, step], weights[step]), accumulator_bits)
    return acc


def layer_accumulators(plan: LowbitPlan) -> np.ndarray:
    """The integer accumulators of every output, ``(groups, m, n)``, as the datapath computes them
    (fp32 layers: the float products)."""
    spec, precision = plan.spec, plan.precision
    w, _ = weight_codes(plan.layer, precision, spec)
    x, _ = input_codes(plan.layer, precision, spec)
    groups, n = x.shape[0], w.shape[1] // x.shape[0]
    out = []
    for g in range(groups):
        xg, wg = x[g], w[:, g * n:(g + 1) * n]
        if precision == "binary":
            out.append(binary_gemm(xg, wg, spec.word_bits))
        elif precision in SKIPPING:
            out.append(wrap(skip_zero_gemm(xg, wg), spec.accumulator_bits))
        elif precision in INT_BITS:
            out.append(int_gemm(xg, wg, spec.accumulator_bits))
        else:
            out.append(xg @ wg)
    return np.stack(out)


def layer_outputs(plan: LowbitPlan) -> np.ndarray:
    """Real outputs ``(groups, m, n)``: accumulators x weight scale (per column) x input scale (per
    tensor, or per row: XNOR-Net's beta)."""
    w_scale = weight_codes(plan.layer, plan.precision, plan.spec)[1]
    x_scale = input_codes(plan.layer, plan.precision, plan.spec)[1]
    acc = layer_accumulators(plan)
    return acc * w_scale.reshape(acc.shape[0], 1, -1) * x_scale
