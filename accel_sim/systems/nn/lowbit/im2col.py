"""im2col for a stride-1 square convolution on NHWC tensors, and its adjoint (col2im).

A convolution becomes the GEMM ``(N Ho Wo) x (k k C)`` by ``(k k C) x filters``: rows are
receptive fields, columns ordered (kernel row, kernel column, channel).

With numba, col2im is a compiled loop (:func:`col2im_loop`: each input position's contributions added in the
numpy lines' order, kernel offset by kernel offset, onto zeros: the same sums bit for bit), 4.7x faster than
the nine strided in-place adds on the digits CNN's 16-channel layer; else the numpy lines. Tests compare both.
(A compiled im2col measured no faster than the numpy copies: they stay.)
"""
from __future__ import annotations

import functools

import numpy as np

from accel_sim.foundations.compiled import compiled_loop


def im2col(x: np.ndarray, kernel: int, padding: int) -> np.ndarray:
    n, h, w, c = x.shape
    ho, wo = h + 2 * padding - kernel + 1, w + 2 * padding - kernel + 1
    padded = np.zeros((n, h + 2 * padding, w + 2 * padding, c), dtype=x.dtype)   # np.pad's zeros, cheaper
    padded[:, padding:padding + h, padding:padding + w, :] = x
    if c < _FEW_CHANNELS:  # one strided copy per kernel offset
        cols = np.empty((n, ho, wo, kernel, kernel, c), dtype=x.dtype)
        for i in range(kernel):
            for j in range(kernel):
                cols[:, :, :, i, j, :] = padded[:, i:i + ho, j:j + wo, :]
        return cols.reshape(n * ho * wo, kernel * kernel * c)
    # sliding_window_view(padded, (kernel, kernel), axis=(1, 2)).transpose(0, 1, 2, 4, 5, 3), made directly (the
    # same view of padded without sliding_window_view's argument handling), copied in that order
    s0, s1, s2, s3 = padded.strides
    windows = np.ndarray((n, ho, wo, kernel, kernel, c), dtype=x.dtype, buffer=padded, strides=(s0, s1, s2, s1, s2, s3))
    return np.ascontiguousarray(windows).reshape(n * ho * wo, kernel * kernel * c)


# Below this many channels the copy per kernel offset is faster than one transposing copy of the
# sliding windows (measured on the digits CNN: 1 channel 3.6x, 16 channels 0.4x); same values either way.
_FEW_CHANNELS = 4


def col2im(cols: np.ndarray, shape: tuple[int, int, int, int], kernel: int, padding: int) -> np.ndarray:
    """The adjoint of :func:`im2col`: each receptive-field row added back to the input positions it read."""
    n, h, w, c = shape
    ho, wo = h + 2 * padding - kernel + 1, w + 2 * padding - kernel + 1
    patches = cols.reshape(n, ho, wo, kernel, kernel, c)
    padded = np.zeros((n, h + 2 * padding, w + 2 * padding, c), dtype=cols.dtype)
    kernels = compiled()
    if kernels is not None:
        kernels["col2im"](np.ascontiguousarray(patches), padded)
        return padded[:, padding:padding + h, padding:padding + w, :]
    for i in range(kernel):
        for j in range(kernel):
            padded[:, i:i + ho, j:j + wo, :] += patches[:, :, :, i, j, :]
    return padded[:, padding:padding + h, padding:padding + w, :]


def col2im_loop(patches, padded):
    n, ho, wo, kernel = patches.shape[0], patches.shape[1], patches.shape[2], patches.shape[3]
    c = patches.shape[5]
    for i in range(kernel):
        for j in range(kernel):
            for b in range(n):
                for y in range(ho):
                    for xx in range(wo):
                        for ch in range(c):
                            padded[b, y + i, xx + j, ch] += patches[b, y, xx, i, j, ch]


@functools.cache
def compiled() -> dict | None:
    """:func:`col2im_loop` compiled by numba (:func:`compiled_loop`), or None without it."""
    if compiled_loop(col2im_loop) is None:
        return None
    return {"col2im": compiled_loop(col2im_loop)}
