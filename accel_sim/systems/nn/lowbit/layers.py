"""The layers of a low-bit network (numpy, NHWC): a quantized GEMM layer (fully connected or
convolution through im2col), batch norm (optionally shift-based), 2 x 2 max pooling, flatten.

Every layer has ``forward(x, train)``, ``backward(grad) -> grad of x``, and ``parameters()`` /
``gradients()`` (same order) for the optimiser.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.systems.nn.lowbit import batch_norm_kernel, max_pool_kernel
from accel_sim.systems.nn.lowbit.im2col import col2im, im2col
from accel_sim.systems.nn.lowbit.quantizer import GradientQuantizer, InputQuantizer, WeightQuantizer

BATCH_NORM_EPSILON = 1e-5    # Ioffe & Szegedy 2015
BATCH_NORM_MOMENTUM = 0.9    # running statistics: 0.9 old + 0.1 batch
_FLOAT32 = np.dtype(np.float32)
# the float32 constants the numpy lines' Python floats become (numpy's weak scalars), for the compiled loops
_MOMENTUM, _REST, _EPSILON = (np.float32(v) for v in (BATCH_NORM_MOMENTUM, 1 - BATCH_NORM_MOMENTUM, BATCH_NORM_EPSILON))


class ParameterFree:
    """A layer without parameters (pooling, flatten, activation functions)."""

    def parameters(self) -> list[np.ndarray]:
        return []

    def gradients(self) -> list[np.ndarray]:
        return []

    def set_parameters(self, values: list[np.ndarray]) -> None:
        return None


@dataclass
class Quantizers:
    weights: WeightQuantizer
    inputs: InputQuantizer
    gradients: GradientQuantizer


class GemmLayer:
    """``y = q_in(x) @ q_w(W) (+ b)``; with ``kernel`` a stride-1 convolution on NHWC input.

    ``W`` is ``(fan_in, outputs)`` (real-valued, He-initialised); XNOR-Net's per-row scale of the
    input multiplies each receptive-field row.
    """

    def __init__(self, fan_in: int, outputs: int, quantizers: Quantizers, rng: np.random.Generator,
                 kernel: int | None = None, padding: int = 0, bias: bool = False):
        self.weights = (rng.standard_normal((fan_in, outputs)) * np.sqrt(2.0 / fan_in)).astype(np.float32)
        self.bias = np.zeros(outputs, dtype=np.float32) if bias else None
        self.q = quantizers
        self.kernel, self.padding = kernel, padding
        self.weights = self.q.weights.after_update(self.q.weights.initial(self.weights, rng))
        self._cache: tuple | None = None
        self._grads: list[np.ndarray] = []

    def _rows(self, x: np.ndarray) -> np.ndarray:
        return x if self.kernel is None else im2col(x, self.kernel, self.padding)

    def forward(self, x: np.ndarray, train: bool = True) -> np.ndarray:
        rows = self._rows(self.q.inputs.forward(x))
        scale = self.q.inputs.row_scale(np.abs(self._rows(x))) if self.q.inputs.scales_rows else None
        if scale is not None:
            rows = rows * scale[:, None]
        wq = self.q.weights.forward(self.weights, train)
        y = rows @ wq
        if self.bias is not None:
            y = y + self.bias
        if train:
            self._cache = (x.shape, rows, wq, scale)
        if self.kernel is None:
            return y
        n, h, w, _ = x.shape
        size = h + 2 * self.padding - self.kernel + 1
        return y.reshape(n, size, w + 2 * self.padding - self.kernel + 1, -1)

    def backward(self, grad: np.ndarray, input_gradient: bool = True) -> np.ndarray | None:
        """The gradient of the layer's input (None with ``input_gradient=False``: the first layer, whose input is
        the data, skips its GEMM); the parameters' gradients are kept for :meth:`gradients`."""
        shape, rows, wq, scale = self._cache
        grad = self.q.gradients.forward(grad).reshape(-1, grad.shape[-1])   # per-sample scale: before the reshape
        grad_w = rows.T @ grad
        self._grads = [self.q.weights.backward(grad_w)]
        if self.bias is not None:
            self._grads.append(grad.sum(axis=0))
        self._grads += self.q.weights.parameter_gradients()
        if not input_gradient:
            return None
        grad_rows = grad @ wq.T
        if scale is not None:
            grad_rows = grad_rows * scale[:, None]
        grad_x = grad_rows if self.kernel is None else col2im(grad_rows, shape, self.kernel, self.padding)
        return self.q.inputs.backward(grad_x)

    def parameters(self) -> list[np.ndarray]:
        return [self.weights] + ([self.bias] if self.bias is not None else []) + self.q.weights.parameters()

    def gradients(self) -> list[np.ndarray]:
        return self._grads

    def set_parameters(self, values: list[np.ndarray]) -> None:
        self.weights = self.q.weights.after_update(values[0])
        rest = values[1:]
        if self.bias is not None:
            self.bias, rest = rest[0], rest[1:]
        if rest:
            self.q.weights.set_parameters(rest)


def power_of_two(x: np.ndarray) -> np.ndarray:
    """AP2 of Hubara et al. 2016 (Sec. 3.3): the power of two nearest x in the log domain, sign kept."""
    magnitude = np.abs(x)
    return (np.sign(x) * np.exp2(np.rint(np.log2(np.where(magnitude > 0, magnitude, 1.0))))).astype(x.dtype)


class BatchNorm:
    """Batch norm over every axis but the last (features / channels), learned scale and shift.

    ``shift_based``: the scale ``gamma / sqrt(var + eps)`` is applied as two powers of two
    (``AP2(gamma) x AP2(1 / sqrt(var + eps))``: shifts), Hubara et al. 2016 Algorithm 3; the
    gradient treats AP2 as the identity (straight through).
    """

    def __init__(self, features: int, shift_based: bool = False):
        self.gamma = np.ones(features, dtype=np.float32)
        self.beta = np.zeros(features, dtype=np.float32)
        self.running_mean = np.zeros(features, dtype=np.float32)
        self.running_var = np.ones(features, dtype=np.float32)
        self.shift_based = shift_based
        self._cache: tuple | None = None
        self._grads: list[np.ndarray] = []

    def _scales(self, inv_std: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.shift_based:
            return power_of_two(inv_std), power_of_two(self.gamma)
        return inv_std, self.gamma

    def forward(self, x: np.ndarray, train: bool = True) -> np.ndarray:
        kernels = batch_norm_kernel.compiled() if train else None
        if kernels is not None and self._compiled_ready(x):
            return self._forward_compiled(x, kernels)
        if train:   # the mean, and the variance around it, as np.mean and np.var(mean=) compute them: the same bits
            axes, count = _batch_axes(x)
            kept = _mean(x, axes, count, keepdims=True)
            mean = kept.reshape(kept.shape[-1])
            centred = x - kept                     # np.var's deviations, which are also the normalised input's
            var = _mean(centred * centred, axes, count)
            self.running_mean = (BATCH_NORM_MOMENTUM * self.running_mean + (1 - BATCH_NORM_MOMENTUM) * mean)
            self.running_var = (BATCH_NORM_MOMENTUM * self.running_var + (1 - BATCH_NORM_MOMENTUM) * var)
        else:
            mean, var = self.running_mean, self.running_var
            centred = x - mean
        inv_std = (1.0 / np.sqrt(var + BATCH_NORM_EPSILON)).astype(np.float32, copy=False)
        scale, gamma = self._scales(inv_std)
        normalised = centred * scale
        if train:
            self._cache = (centred, normalised, inv_std, scale, gamma)
        out = normalised * gamma
        return np.add(out, self.beta, out=out).astype(np.float32, copy=False)

    def _compiled_ready(self, x: np.ndarray) -> bool:
        """The compiled loops' case: float32 everywhere (input, scale, shift, running statistics), x C-ordered."""
        return (x.dtype == _FLOAT32 and x.ndim >= 2 and x.shape[0] > 0 and x.flags.c_contiguous
                and self.gamma.dtype == self.beta.dtype == self.running_mean.dtype == self.running_var.dtype == _FLOAT32
                and self.gamma.shape == self.beta.shape == self.running_mean.shape == self.running_var.shape
                == x.shape[-1:])

    def _forward_compiled(self, x: np.ndarray, kernels: dict) -> np.ndarray:
        """The training forward above in :mod:`.batch_norm_kernel`'s loops (the same operations: the same bits)."""
        features = x.shape[-1]
        rows = x.reshape(-1, features)
        statistics = np.empty((5, features), dtype=_FLOAT32)
        centred = np.empty(x.shape, dtype=_FLOAT32)
        kernels["statistics"](rows, rows.shape[0], _MOMENTUM, _REST, _EPSILON, self.running_mean, self.running_var,
                              centred.reshape(rows.shape), statistics)
        self.running_mean, self.running_var, inv_std = statistics[2], statistics[3], statistics[4]
        scale, gamma = self._scales(inv_std)
        normalised, out = np.empty(x.shape, dtype=_FLOAT32), np.empty(x.shape, dtype=_FLOAT32)
        kernels["output"](centred.reshape(rows.shape), scale, gamma, self.beta, normalised.reshape(rows.shape),
                          out.reshape(rows.shape))
        self._cache = (centred, normalised, inv_std, scale, gamma)
        return out

    def backward(self, grad: np.ndarray) -> np.ndarray:
        """``scale (g - mean(g)) - centred inv_std**3 mean(g centred)`` with ``g = grad gamma``, each product and
        difference in that order, written into two buffers instead of a fresh array for each (or in
        :mod:`.batch_norm_kernel`'s loop: the same operations)."""
        centred, normalised, inv_std, scale, gamma = self._cache
        kernels = batch_norm_kernel.compiled()
        if (kernels is not None and grad.dtype == _FLOAT32 and grad.shape == centred.shape
                and grad.flags.c_contiguous and centred.dtype == normalised.dtype == _FLOAT32
                and centred.flags.c_contiguous and normalised.flags.c_contiguous
                and scale.dtype == gamma.dtype == inv_std.dtype == _FLOAT32):
            features = grad.shape[-1]
            rows = grad.reshape(-1, features)
            parameter_gradients = np.empty((2, features), dtype=_FLOAT32)
            out = np.empty(grad.shape, dtype=_FLOAT32)
            kernels["backward"](rows, normalised.reshape(rows.shape), centred.reshape(rows.shape), gamma, scale,
                                inv_std ** 3, rows.shape[0], parameter_gradients, out.reshape(rows.shape))
            self._grads = [parameter_gradients[0], parameter_gradients[1]]
            return out
        axes, count = _batch_axes(grad)
        self._grads = [np.add.reduce(grad * normalised, axes), np.add.reduce(grad, axes)]
        g = grad * gamma
        correlated = g * centred
        mean_gc = _mean(correlated, axes, count)
        first = np.multiply(scale, np.subtract(g, _mean(g, axes, count), out=g), out=g)
        second = np.multiply(np.multiply(centred, inv_std ** 3, out=correlated), mean_gc, out=correlated)
        return np.subtract(first, second, out=first).astype(np.float32, copy=False)

    def parameters(self) -> list[np.ndarray]:
        return [self.gamma, self.beta]

    def gradients(self) -> list[np.ndarray]:
        return self._grads

    def set_parameters(self, values: list[np.ndarray]) -> None:
        self.gamma, self.beta = values


def _batch_axes(x: np.ndarray) -> tuple[tuple[int, ...], np.intp]:
    """Batch norm's reduced axes (every one but the last) and how many elements each mean averages."""
    found = _BATCH_AXES.get(x.shape)
    if found is None:
        count = 1
        for size in x.shape[:-1]:
            count *= size
        found = _BATCH_AXES[x.shape] = (tuple(range(x.ndim - 1)), np.intp(count))
    return found


_BATCH_AXES: dict[tuple[int, ...], tuple[tuple[int, ...], np.intp]] = {}   # a network sees a few batch shapes


def _mean(x: np.ndarray, axes: tuple[int, ...], count: np.intp, keepdims: bool = False) -> np.ndarray:
    """``x.mean(axis=axes)`` as numpy computes it (the sum reduced in ``x``'s dtype, then divided in place by the
    integer count), without its per-call argument handling (batch norm takes ~8 means a training step)."""
    total = np.add.reduce(x, axes, None, None, keepdims)
    return np.true_divide(total, count, out=total, casting="unsafe")


class MaxPool2(ParameterFree):
    """2 x 2 max pooling, stride 2 (NHWC); the gradient goes to the first maximum of each window.
    With numba, compiled loops (:mod:`.max_pool_kernel`, the same values and choices); else these numpy lines."""

    def __init__(self) -> None:
        self._cache: tuple | None = None

    def forward(self, x: np.ndarray, train: bool = True) -> np.ndarray:
        n, h, w, c = x.shape
        kernels = max_pool_kernel.compiled()
        if kernels is not None:
            out = np.empty((n, h // 2, w // 2, c), dtype=x.dtype)
            index = np.empty(out.shape, dtype=np.intp)
            kernels["pool"](x, out, index)
        else:
            windows = x.reshape(n, h // 2, 2, w // 2, 2, c).transpose(0, 1, 3, 5, 2, 4).reshape(n, h // 2, w // 2, c, 4)
            index = windows.argmax(axis=-1)
            out = np.take_along_axis(windows, index[..., None], axis=-1)[..., 0]
        if train:
            self._cache = (x.shape, index)
        return out

    def backward(self, grad: np.ndarray) -> np.ndarray:
        (n, h, w, c), index = self._cache
        kernels = max_pool_kernel.compiled()
        if kernels is not None:
            out = np.zeros((n, h, w, c), dtype=grad.dtype)
            kernels["unpool"](grad, index, out)
            return out
        windows = np.zeros((n, h // 2, w // 2, c, 4), dtype=grad.dtype)
        np.put_along_axis(windows, index[..., None], grad[..., None], axis=-1)
        return windows.reshape(n, h // 2, w // 2, c, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(n, h, w, c)


class Flatten(ParameterFree):
    def __init__(self) -> None:
        self._shape: tuple[int, ...] | None = None

    def forward(self, x: np.ndarray, train: bool = True) -> np.ndarray:
        self._shape = x.shape
        return x.reshape(x.shape[0], -1)

    def backward(self, grad: np.ndarray) -> np.ndarray:
        return grad.reshape(self._shape)
