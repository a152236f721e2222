"""Operands of a layer as the PE array sees them, and what the layer computes (numpy).

The weights and inputs come from the workload (``accel_sim.foundations.workload.operands``), reshaped to
the conv view (:mod:`.tiling`). The outputs are the ReLU (applied by the PPU) of a plain
numpy convolution, independent of any dataflow: the plan encodes them to size the OARAM and
DRAM output traffic, and tests compare the reference's accumulators against them.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from accel_sim.models.scnn.plan.nonzeros import run_bounds, stable_order
from accel_sim.models.scnn.plan.tiling import ConvView, conv_view
from accel_sim.foundations.workload.layer import ConvLayer, Layer
from accel_sim.foundations.workload.operands import layer_operands


def conv_operands(layer: Layer, fc_layout: str = "channels") -> tuple[np.ndarray, np.ndarray]:
    """Weights ``(groups, Kg, Cg, R, S)`` and inputs ``(batch, groups, Cg, H, W)`` of the conv view
    (:func:`~.tiling.conv_view`; 'dnnsim_planes': the ``k`` inputs zero-padded to whole planes and
    reshaped in C order, as DNNsim's ``split_4D``)."""
    return conv_weights(layer, fc_layout), conv_inputs(layer, fc_layout)


def _fc_pad(view: ConvView, layer: Layer) -> int:
    """Zeros appended to a GEMM's ``k`` reduction entries to fill the view's channels x planes."""
    return view.channels * view.h * view.w - layer.k


def conv_weights(layer: Layer, fc_layout: str = "channels") -> np.ndarray:
    """The weights of :func:`conv_operands`."""
    view, weights = conv_view(layer, fc_layout), layer_operands(layer).weights
    if weights.ndim == 4:
        return weights.reshape(view.groups, view.out_channels, view.channels, view.r, view.s)
    pad = _fc_pad(view, layer)   # GEMM: (k, n) weights
    weights = np.pad(weights.T, ((0, 0), (0, pad))) if pad else weights.T
    return weights.reshape(1, view.out_channels, view.channels, view.r, view.s)


def conv_inputs(layer: Layer, fc_layout: str = "channels") -> np.ndarray:
    """The inputs of :func:`conv_operands`."""
    view, inputs = conv_view(layer, fc_layout), layer_operands(layer).inputs
    if inputs.ndim == 4:
        return inputs.reshape(view.batch, view.groups, view.channels, view.h, view.w)
    pad = _fc_pad(view, layer)   # GEMM: (m, k) inputs
    inputs = np.pad(inputs, ((0, 0), (0, pad))) if pad else inputs
    return inputs.reshape(view.batch, 1, view.channels, view.h, view.w)


def sparse_fc(layer: Layer, fc_layout: str) -> bool:
    """A fully connected layer in the 'channels' layout: its conv-view weights are the transposed
    ``(k, n)`` matrix, whose non-zeros :func:`fc_nonzeros` reads without the full-size tensor."""
    return not isinstance(layer, ConvLayer) and fc_layout == "channels"


def fc_nonzeros(layer: Layer) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(k, c, r, s) of the non-zeros of a :func:`sparse_fc` layer's conv-view weights ``(1, n, k, 1, 1)``,
    as :func:`~.nonzeros.weight_nonzeros` lists them (channel by channel, the stored order), from
    the operands' non-zeros (``LayerOperands.weight_nonzeros``): int32 when the positions fit."""
    index = layer_operands(layer).weight_nonzeros[0]
    if index.size and int(index[-1]) <= np.iinfo(np.int32).max:
        index = index.astype(np.int32)
    c, k = np.divmod(index, np.asarray(layer.n, dtype=index.dtype))
    zeros = np.broadcast_to(np.intp(0), k.shape)   # as weight_nonzeros: no memory
    return k, c, zeros, zeros


def fc_nonzero_mask(layer: Layer, nonzeros: tuple[np.ndarray, ...]) -> np.ndarray:
    """``conv_weights(layer) != 0`` of a :func:`sparse_fc` layer from its :func:`fc_nonzeros`, in the
    same (transposed) layout."""
    k, c = nonzeros[0], nonzeros[1]
    mask = np.zeros((layer.k, layer.n), dtype=bool)
    mask[c, k] = True
    return mask.T.reshape(1, layer.n, layer.k, 1, 1)


TRANSPOSE_TILE = 256   # transposed weights are copied in tiles of this many rows x columns (cache-sized)


def _tap_matrices(weights: np.ndarray):
    """``(r, s, rows, matrix)`` per kernel tap and block of output-channel rows: ``matrix`` the
    C-contiguous float32 ``(groups, rows, Cg)`` weights of that tap (the layout the matmul reads).
    A kernel is made contiguous once, tap-major; a 1 x 1 kernel of transposed weights (a fully
    connected layer's ``(k, n)`` matrix seen as ``(n, k)``) one block of rows at a time, so no
    full-size copy of the largest weights is ever held."""
    groups, out_channels, channels, kernel_h, kernel_w = weights.shape
    if kernel_h * kernel_w > 1 or weights[:, :, :, 0, 0].flags.c_contiguous:
        taps = np.ascontiguousarray(weights.transpose(3, 4, 0, 1, 2), dtype=np.float32)
        for r in range(kernel_h):
            for s in range(kernel_w):
                yield r, s, slice(0, out_channels), taps[r, s]
        return
    for lo in range(0, out_channels, TRANSPOSE_TILE):
        block = slice(lo, min(out_channels, lo + TRANSPOSE_TILE))
        matrix = np.empty((groups, block.stop - lo, channels), dtype=np.float32)
        for c in range(0, channels, TRANSPOSE_TILE):
            matrix[:, :, c:c + TRANSPOSE_TILE] = weights[:, block, c:c + TRANSPOSE_TILE, 0, 0]
        yield 0, 0, block, matrix


def _fc_tap_matrices(layer: Layer):
    """:func:`_tap_matrices` of a :func:`sparse_fc` layer's weights (the same blocks of rows, the same
    values), each block filled from the operands' non-zeros: no full-size tensor."""
    index, values = layer_operands(layer).weight_nonzeros
    if index.size and int(index[-1]) <= np.iinfo(np.int32).max:   # int32 division: about twice as fast
        index = index.astype(np.int32)
    c, k = np.divmod(index, np.asarray(layer.n, dtype=index.dtype))
    order = stable_order(k, layer.n)   # by output row (the block's rows)
    place = (k % TRANSPOSE_TILE).astype(np.int64) * layer.k + c   # row-major in its block's (rows, k) matrix
    bounds = run_bounds(k // TRANSPOSE_TILE, -(-layer.n // TRANSPOSE_TILE))
    place, values = place[order], values[order]
    buffer = np.zeros(min(layer.n, TRANSPOSE_TILE) * layer.k, dtype=np.float32)   # one block, reused
    for i, lo in enumerate(range(0, layer.n, TRANSPOSE_TILE)):
        block = slice(lo, min(layer.n, lo + TRANSPOSE_TILE))
        at = slice(bounds[i], bounds[i + 1])
        buffer[place[at]] = values[at]
        yield 0, 0, block, buffer[:(block.stop - lo) * layer.k].reshape(1, block.stop - lo, layer.k)
        buffer[place[at]] = 0   # zero again for the next block (the caller has used this one)


def convolution(view: ConvView, weights: np.ndarray | None, inputs: np.ndarray, taps=None) -> np.ndarray:
    """Pre-activation sums ``(batch, groups, Kg, out_h, out_w)`` (no ReLU), accumulated in float32
    like the operands (tests compare with tolerance). Every output row is one matmul row over a
    C-contiguous weight row, whatever the blocking: the sums do not depend on it. ``taps``: the
    weights as :func:`_tap_matrices` gives them (then ``weights`` is not read)."""
    b, g = inputs.shape[0], view.groups
    pad_bottom = max(0, (view.out_h - 1) * view.stride_h + view.r - view.h - view.pad_top)
    pad_right = max(0, (view.out_w - 1) * view.stride_w + view.s - view.w - view.pad_left)
    padded = np.pad(inputs.astype(np.float32, copy=False),
                    ((0, 0), (0, 0), (0, 0), (view.pad_top, pad_bottom), (view.pad_left, pad_right)))
    out = np.zeros((b, g, view.out_channels, view.out_h * view.out_w), dtype=np.float32)
    for r, s, rows, matrix in _tap_matrices(weights) if taps is None else taps:
        window = padded[:, :, :, r:r + view.stride_h * (view.out_h - 1) + 1:view.stride_h,
                        s:s + view.stride_w * (view.out_w - 1) + 1:view.stride_w]
        window = window.reshape(b, g, view.channels, -1)
        out[:, :, rows] += np.matmul(matrix[None], window)
    return out.reshape(b, g, view.out_channels, view.out_h, view.out_w)


@lru_cache(maxsize=8)
def layer_outputs(layer: Layer) -> np.ndarray:
    """ReLU of the layer's convolution, ``(batch, groups, Kg, out_h, out_w)`` (cached, read-only).

    The matmuls run on one BLAS thread: OpenBLAS's threaded kernels sum in another order (on 2 cores
    GoogLeNet's inception_4e 1x1 sums differ in the last bits; the ReLU zero pattern, all the model
    reads of the outputs, was identical on all 676 layers of AlexNet, VGG-16, both GoogLeNets and the
    density sweep), so one thread makes the sums independent of the core count; and threads woken
    for each tap's matmul cost far more than the product (GoogLeNet's 54 layers: 1.76 CPU-s on 2
    threads of a busy 2-core machine, 0.045 CPU-s on one)."""
    from accel_sim.foundations.threads import single_threaded_blas  # threadpoolctl when installed
    view = conv_view(layer)
    # an FC layer's blocks of rows from its non-zeros (a one-row or one-column matrix is one block)
    sparse = sparse_fc(layer, "channels") and layer.k > 1 and layer.n > 1
    with single_threaded_blas():
        out = np.maximum(convolution(view, None if sparse else conv_weights(layer), conv_inputs(layer),
                                     _fc_tap_matrices(layer) if sparse else None), 0.0)
    out.flags.writeable = False
    return out
