"""Plan of an Eyeriss layer (pure numpy): the row-stationary mapping and the per-strip tables both
counting paths read.

- :mod:`.mapping`: the PE sets, folding, replication and processing-pass parameters;
- :mod:`.rlc`: the run-length code of the fmaps crossing DRAM.

The tables are indexed ``[group, image, channel or filter, strip]``:

- ``ifmap_bits``: DRAM bits of one ifmap plane's rows that one strip reads (run-length coded, or
  raw ``word_bits`` per value for the network's input image and with coding off);
- ``ofmap_bits``: DRAM bits of one ofmap plane's rows of one strip, coded from the layer's actual
  output, ReLU(conv(inputs, weights)) of its operands (Eyeriss codes ofmaps after its ReLU module);
- ``zero_uses``: the MACs of one filter that read a zero of that ifmap plane in that strip (zero
  padding included): with gating, each one is gated for every filter.

The loop nest of the passes (JSSC 2017, Fig. 7), outermost first: group, strip, block of ``n``
images, block of ``m`` filters (its psums stay in the global buffer), block of ``q x r`` channels
(its ifmaps are loaded once), block of ``p x t`` filters (one processing pass).
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.workload.layer import ConvLayer, Layer
from accel_sim.foundations.workload.operand_cache import MIN_ELEMENTS, arrays_through_cache
from accel_sim.foundations.workload.operands import LayerOperands, layer_operands, spec_hash
from accel_sim.foundations.workload.loop_nest import LoopNest, loop_nest
from accel_sim.models.eyeriss.plan.mapping import RsMapping, rs_mapping, strip_rows, window_rows
from accel_sim.models.eyeriss.plan.rlc import rlc_words
from accel_sim.models.eyeriss.spec import EyerissSpec

__all__ = ["LoopNest", "EyerissPlan", "RsMapping", "blocks", "plan", "window_rows"]


@dataclass(frozen=True)
class EyerissPlan:
    arch: ArchBase
    spec: EyerissSpec
    layer: Layer
    shape: LoopNest
    mapping: RsMapping
    strips: tuple[int, ...]          # ofmap rows of each strip
    strip_starts: tuple[int, ...]    # first ofmap row of each strip
    ifmap_bits: np.ndarray           # (G, N, C, strips)
    ofmap_bits: np.ndarray           # (G, N, M, strips)
    zero_uses: np.ndarray            # (G, N, C, strips)
    bus_bytes_per_cycle: float       # DRAM link bytes per core cycle
    operand_hashes: Mapping[str, str]


def blocks(total: int, size: int) -> tuple[int, ...]:
    """Sizes of the blocks of ``size`` that cover ``total``."""
    return tuple(min(size, total - start) for start in range(0, total, size))


def _padded_inputs(layer: Layer, shape: LoopNest, inputs: np.ndarray) -> np.ndarray:
    """(G, N, C, H, W) ifmaps with their zero padding."""
    if isinstance(layer, ConvLayer):
        x = np.pad(inputs, ((0, 0), (0, 0), (layer.pad_top, layer.pad_bottom), (layer.pad_left, layer.pad_right)))
    else:
        x = inputs.reshape(shape.images, shape.channels * shape.groups, 1, 1)
    return x.reshape(shape.images, shape.groups, shape.channels, shape.height, shape.width).swapaxes(0, 1)


def _outputs(layer: Layer, shape: LoopNest, x: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(G, N, M, E, F) ReLU(conv) of the padded ifmaps: per group and image, the (M, C x R x S) filters times the
    (C x R x S, E x F) ifmap columns (:func:`_columns`)."""
    stride_w = layer.stride_w if isinstance(layer, ConvLayer) else 1
    w = weights.reshape(shape.groups, shape.filters, shape.channels, shape.filter_rows, shape.filter_cols)
    out = np.empty((shape.groups, shape.images, shape.filters, shape.out_rows, shape.out_cols), dtype=np.float32)
    for g in range(shape.groups):
        filters = w[g].reshape(shape.filters, -1)
        for image in range(shape.images):
            product = np.dot(filters, _columns(x[g, image], shape, stride_w))
            out[g, image] = product.reshape(shape.filters, shape.out_rows, shape.out_cols)
    return np.maximum(out, 0)


def _columns(planes: np.ndarray, shape: LoopNest, stride_w: int) -> np.ndarray:
    """(C x R x S, E x F): row (c, r, s) holds ifmap plane c's values under filter tap (r, s) at every ofmap position,
    ``planes[c, e x U + r, f x stride_w + s]``. Copied one tap at a time (a strided plane per channel), the matrix
    ``np.tensordot`` would copy out of a sliding-window view element by element: the same matrix, so the same
    product."""
    rows, cols = shape.out_rows, shape.out_cols
    columns = np.empty((shape.channels, shape.filter_rows, shape.filter_cols, rows, cols), dtype=planes.dtype)
    for r in range(shape.filter_rows):
        for s in range(shape.filter_cols):
            columns[:, r, s] = planes[:, r:r + (rows - 1) * shape.stride + 1:shape.stride,
                                      s:s + (cols - 1) * stride_w + 1:stride_w]
    return columns.reshape(-1, rows * cols)


def _output_nonzero(layer: Layer, shape: LoopNest, x: np.ndarray, ops: LayerOperands) -> np.ndarray:
    """(G, N, M, E, F) non-zero mask of :func:`_outputs`. A large one goes through the operand cache's shared folder
    (:func:`~accel_sim.foundations.workload.operand_cache.arrays_through_cache`) under a hash of what it is computed
    from (the operands' hashes and the convolution's geometry), as packed bits: the processes of one ``reproduce
    all`` that plan the same layer (the eyeriss and silicon-validation studies) convolve it once."""
    dims = (shape.groups, shape.images, shape.filters, shape.out_rows, shape.out_cols)
    size = int(np.prod(dims))
    if size < MIN_ELEMENTS:
        return _outputs(layer, shape, x, ops.weights) != 0
    pads = (layer.pad_top, layer.pad_bottom, layer.pad_left, layer.pad_right) if isinstance(layer, ConvLayer) else ()
    key = spec_hash({"tensor": "eyeriss ReLU(conv) non-zeros", "weights": ops.weight_hash, "inputs": ops.input_hash,
                     "nest": repr(shape), "pads": pads})
    found = arrays_through_cache(key, lambda: {"bits": np.packbits(_outputs(layer, shape, x, ops.weights) != 0)})
    return np.unpackbits(found["bits"], count=size).view(bool).reshape(dims)


def _row_uses(shape: LoopNest, starts: tuple[int, ...], strips: tuple[int, ...]) -> np.ndarray:
    """(strips, H): how many (ofmap row, filter row) pairs of each strip read each ifmap row."""
    uses = np.zeros((len(strips), shape.height), dtype=np.int64)
    for i, (start, rows) in enumerate(zip(starts, strips)):
        for y in range(start, start + rows):
            uses[i, y * shape.stride:y * shape.stride + shape.filter_rows] += 1
    return uses


def _col_uses(layer: Layer, shape: LoopNest) -> np.ndarray:
    stride_w = layer.stride_w if isinstance(layer, ConvLayer) else 1
    uses = np.zeros(shape.width, dtype=np.int64)
    for x in range(shape.out_cols):
        uses[x * stride_w:x * stride_w + shape.filter_cols] += 1
    return uses


def _coded_bits(spec: EyerissSpec, nonzero: np.ndarray, word_bits: int, raw: bool) -> np.ndarray:
    """Bits of each stream (rows of ``nonzero``): coded words of the link, or raw values."""
    if raw:
        return np.full(nonzero.shape[0], nonzero.shape[1] * word_bits, dtype=np.int64)
    return rlc_words(nonzero, spec.max_run, spec.rlc_pairs_per_word) * spec.link_bits


def _strip_bits(spec: EyerissSpec, planes: np.ndarray, spans: list[tuple[int, int]], word_bits: int,
                raw: bool) -> np.ndarray:
    """(G, N, planes, strips) bits of rows ``[first, last)`` of every plane, one span per strip."""
    g, n, c = planes.shape[:3]
    bits = np.empty((g, n, c, len(spans)), dtype=np.int64)
    for i, (first, last) in enumerate(spans):
        streams = planes[:, :, :, first:last].reshape(g * n * c, -1) != 0
        bits[..., i] = _coded_bits(spec, streams, word_bits, raw).reshape(g, n, c)
    return bits


def plan(arch: ArchBase, layer: Layer) -> EyerissPlan:
    spec: EyerissSpec = arch.section("eyeriss")
    shape = loop_nest(layer)
    mapping = rs_mapping(spec, shape, arch.word_bits, layer)
    strips = strip_rows(shape, mapping.e)
    starts = tuple(range(0, shape.out_rows, mapping.e))
    ops = layer_operands(layer)
    x = _padded_inputs(layer, shape, ops.inputs)
    raw_in = layer.name in spec.raw_input_layers or not spec.run_length_coding
    in_spans = [(start * shape.stride, start * shape.stride + window_rows(shape, rows))
                for start, rows in zip(starts, strips)]
    out = _output_nonzero(layer, shape, x, ops)
    out_spans = [(start, start + rows) for start, rows in zip(starts, strips)]
    # zero_uses[g, n, c, s] = sum over h, w of zero[g, n, c, h, w] x col_uses[w] x row_uses[s, h]: the columns
    # summed first, then the rows (two integer products; one three-operand einsum loops over every (h, w, s))
    zero = (x == 0).astype(np.int64)
    zero_uses = (zero @ _col_uses(layer, shape)) @ _row_uses(shape, starts, strips).T
    bus = spec.link_bits / 8 * spec.link_clock / arch.clock
    return EyerissPlan(arch, spec, layer, shape, mapping, strips, starts,
                       _strip_bits(spec, x, in_spans, arch.word_bits, raw_in),
                       _strip_bits(spec, out, out_spans, arch.word_bits, not spec.run_length_coding),
                       zero_uses, bus, MappingProxyType(dict(ops.hashes)))
