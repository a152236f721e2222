"""Batch norm's training passes compiled by numba: :class:`~.layers.BatchNorm`'s numpy lines over float32 arrays
(rows x features) in two or three loops instead of about twenty numpy calls a pass (each a few microseconds on the
digits networks' 64-row batches).

The same operations in the same order on each element, so the same bits: a feature's sum is numpy's reduction
over the rows (the first row, then each later row added in turn: numpy reduces a C-ordered array's leading axes
so, since its inner loop runs along the features; tests check it), a mean that sum divided in float64 by the
count and rounded to float32 (``np.mean``'s divide by the integer count), every other operation a float32 one
(Python floats become float32 constants, as numpy's scalars do). ``np.divide`` keeps numpy's division (no
zero-division check). :class:`~.layers.BatchNorm` keeps the numpy lines for other dtypes and machines without
numba; tests compare both.
"""
from __future__ import annotations

import functools

import numpy as np

from accel_sim.foundations.compiled import compiled_loop


def statistics_loop(x, count, momentum, rest, epsilon, running_mean, running_var, centred, statistics):
    """``statistics`` rows: the batch mean, the variance, the new running mean and variance, ``1 / sqrt(var + eps)``;
    ``centred`` gets ``x - mean``."""
    rows, features = x.shape
    mean, var, new_mean, new_var, inv_std = statistics[0], statistics[1], statistics[2], statistics[3], statistics[4]
    for j in range(features):
        mean[j] = x[0, j]
    for i in range(1, rows):
        for j in range(features):
            mean[j] += x[i, j]
    for j in range(features):
        mean[j] = np.float32(np.divide(np.float64(mean[j]), np.float64(count)))
    for i in range(rows):
        for j in range(features):
            centred[i, j] = x[i, j] - mean[j]
    for j in range(features):
        var[j] = centred[0, j] * centred[0, j]
    for i in range(1, rows):
        for j in range(features):
            var[j] += centred[i, j] * centred[i, j]
    for j in range(features):
        var[j] = np.float32(np.divide(np.float64(var[j]), np.float64(count)))
        new_mean[j] = momentum * running_mean[j] + rest * mean[j]
        new_var[j] = momentum * running_var[j] + rest * var[j]
        inv_std[j] = np.divide(np.float32(1.0), np.sqrt(var[j] + epsilon))


def output_loop(centred, scale, gamma, beta, normalised, out):
    """``normalised = centred scale``, ``out = normalised gamma + beta``."""
    rows, features = centred.shape
    for i in range(rows):
        for j in range(features):
            value = centred[i, j] * scale[j]
            normalised[i, j] = value
            out[i, j] = value * gamma[j] + beta[j]


def backward_loop(grad, normalised, centred, gamma, scale, cubed, count, parameter_gradients, out):
    """``parameter_gradients`` rows: sum of ``grad normalised`` and of ``grad``; ``out``: the input's gradient
    ``scale (g - mean(g)) - centred cubed mean(g centred)`` with ``g = grad gamma`` (``cubed = inv_std ** 3``)."""
    rows, features = grad.shape
    sums = np.empty((2, features), dtype=grad.dtype)     # of g, of g centred
    d_gamma, d_beta, sum_g, sum_gc = parameter_gradients[0], parameter_gradients[1], sums[0], sums[1]
    for j in range(features):
        d_gamma[j] = grad[0, j] * normalised[0, j]
        d_beta[j] = grad[0, j]
        g = grad[0, j] * gamma[j]
        sum_g[j] = g
        sum_gc[j] = g * centred[0, j]
    for i in range(1, rows):
        for j in range(features):
            d_gamma[j] += grad[i, j] * normalised[i, j]
            d_beta[j] += grad[i, j]
            g = grad[i, j] * gamma[j]
            sum_g[j] += g
            sum_gc[j] += g * centred[i, j]
    for j in range(features):
        sum_g[j] = np.float32(np.divide(np.float64(sum_g[j]), np.float64(count)))
        sum_gc[j] = np.float32(np.divide(np.float64(sum_gc[j]), np.float64(count)))
    for i in range(rows):
        for j in range(features):
            first = scale[j] * (grad[i, j] * gamma[j] - sum_g[j])
            out[i, j] = first - (centred[i, j] * cubed[j]) * sum_gc[j]


@functools.cache
def compiled() -> dict | None:
    """The three loops compiled by numba (:func:`compiled_loop`), or None without numba."""
    if compiled_loop(statistics_loop) is None:
        return None
    return {"statistics": compiled_loop(statistics_loop), "output": compiled_loop(output_loop),
            "backward": compiled_loop(backward_loop)}
