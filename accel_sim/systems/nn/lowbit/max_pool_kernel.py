"""2 x 2 max pooling's loops compiled by numba: the low-bit CNN's pooling without the transposed copy of every
window, ``argmax`` along a 4-long axis and ``take_along_axis`` / ``put_along_axis`` (about 5x faster).

:func:`pool_loop` is ``argmax`` on each window (order (row, column) (0, 0), (0, 1), (1, 0), (1, 1)): a later
value replaces the best so far when it is not ``<=`` it (greater, or NaN) and the best so far is not a NaN (a NaN
ends the search), as numpy's ``argmax`` does (first maximum, first NaN); the output is the chosen input value itself. :func:`unpool_loop`
puts each gradient at its window's chosen position, zeros elsewhere. :class:`~.layers.MaxPool2` keeps the numpy
lines for machines without numba; tests compare both.
"""
from __future__ import annotations

import functools

import numpy as np

from accel_sim.foundations.compiled import compiled_loop


def pool_loop(x, out, index):
    """Each window's first maximum (or first NaN) and its position; the choice is a select, not a branch (a
    branch on which of four random values is largest mispredicts: 13x slower on the digits CNN's first layer)."""
    n, h, w, c = x.shape
    for b in range(n):
        for i in range(h // 2):
            for j in range(w // 2):
                for ch in range(c):
                    best = x[b, 2 * i, 2 * j, ch]
                    chosen = 0
                    for k in range(1, 4):
                        value = x[b, 2 * i + k // 2, 2 * j + k % 2, ch]
                        take = (best == best) & (not value <= best)    # best a NaN: the search has ended
                        best = value if take else best
                        chosen = k if take else chosen
                    out[b, i, j, ch] = best
                    index[b, i, j, ch] = chosen


def unpool_loop(grad, index, out):
    n, h, w, c = grad.shape
    for b in range(n):
        for i in range(h):
            for j in range(w):
                for ch in range(c):
                    k = index[b, i, j, ch]
                    out[b, 2 * i + k // 2, 2 * j + k % 2, ch] = grad[b, i, j, ch]


@functools.cache
def compiled() -> dict | None:
    """:func:`pool_loop` and :func:`unpool_loop` compiled by numba (:func:`compiled_loop`), or None without numba."""
    if compiled_loop(pool_loop) is None:
        return None
    return {"pool": compiled_loop(pool_loop), "unpool": compiled_loop(unpool_loop)}
