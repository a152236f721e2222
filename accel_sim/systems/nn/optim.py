"""Optimisers: SGD with momentum and Adam. The update of each parameter is a named tensor
(``v{l}`` / ``vb{l}``) that goes through the number format before it is applied; the new
parameters go through it again when stored. Adam's moment estimates stay in float32 (the
host's state, not a datapath tensor).

:meth:`Optimizer.updates` works on any list of parameter arrays (the low-bit networks of
:mod:`accel_sim.systems.nn.lowbit` use it); :meth:`Optimizer.step` applies them to an :class:`MLP`.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from accel_sim.foundations.compiled import compiled_loop
from accel_sim.systems.nn.mlp import MLP
from accel_sim.systems.nn.number_format import Float32, NumberFormat

OPTIMIZERS = ("sgd", "adam")
ADAM_BETAS = (0.9, 0.999)  # Kingma & Ba, ICLR 2015 defaults
ADAM_EPSILON = 1e-8


class Optimizer:
    def __init__(self, model: MLP | Sequence[np.ndarray], kind: str, learning_rate: float, momentum: float = 0.9):
        if kind not in OPTIMIZERS:
            raise ValueError(f"unknown optimizer {kind!r}; expected one of {', '.join(OPTIMIZERS)}")
        if not learning_rate > 0:
            raise ValueError(f"learning_rate must be > 0, got {learning_rate}")
        self.kind, self.learning_rate, self.momentum = kind, float(learning_rate), float(momentum)
        params = model.weights + model.biases if isinstance(model, MLP) else list(model)
        self.velocity = [np.zeros_like(p) for p in params]
        self.second = [np.zeros_like(p) for p in params]
        self.t = 0
        self._flat: tuple | None = None    # Adam's state as one buffer each (views in velocity / second), see _flat_state


    def updates(self, grads: Sequence[np.ndarray], names: Sequence[str] | None = None,
                fmt: NumberFormat | None = None) -> list[np.ndarray]:
        """One step's update of each parameter (to be added to it), each named tensor through ``fmt``."""
        self.t += 1
        if fmt is None and self.kind == "adam" and self._flat_state(grads) is not None:
            return self._adam_flat(grads)
        self._flat = None    # the lines below may replace a state array: the flat buffers no longer hold it
        fmt = fmt if fmt is not None else Float32()
        names = names if names is not None else [f"p{j}" for j in range(len(grads))]
        result = []
        for j, (name, g) in enumerate(zip(names, grads)):
            if self.kind == "sgd":
                update = fmt.quantize(name, self.momentum * self.velocity[j] - self.learning_rate * g)
                self.velocity[j] = update
            elif _in_place(g, self.velocity[j], self.second[j]):
                update = fmt.quantize(name, self._adam_in_place(self.velocity[j], self.second[j], g))
            else:
                b1, b2 = ADAM_BETAS
                self.velocity[j] = b1 * self.velocity[j] + (1 - b1) * g
                self.second[j] = b2 * self.second[j] + (1 - b2) * g * g
                m_hat = self.velocity[j] / (1 - b1 ** self.t)
                v_hat = self.second[j] / (1 - b2 ** self.t)
                update = fmt.quantize(name, -self.learning_rate * m_hat / (np.sqrt(v_hat) + ADAM_EPSILON))
            result.append(update)
        return result

    def _adam_in_place(self, velocity: np.ndarray, second: np.ndarray, g: np.ndarray) -> np.ndarray:
        """The Adam lines below on one parameter's state (or :meth:`_flat_state`'s buffers, all at once), their
        temporaries written in place: the same operations on the same dtype (a product's operands swapped: IEEE
        products commute), so the same bits, without allocating a fresh array for each."""
        b1, b2 = ADAM_BETAS
        scaled = (1 - b1) * g
        np.add(np.multiply(velocity, b1, out=velocity), scaled, out=velocity)
        squared = np.multiply((1 - b2) * g, g, out=scaled)
        np.add(np.multiply(second, b2, out=second), squared, out=second)
        m_hat = velocity / (1 - b1 ** self.t)
        v_hat = np.divide(second, 1 - b2 ** self.t, out=squared)
        denominator = np.add(np.sqrt(v_hat, out=v_hat), ADAM_EPSILON, out=v_hat)
        return np.divide(np.multiply(m_hat, -self.learning_rate, out=m_hat), denominator, out=m_hat)

    def _flat_state(self, grads: Sequence[np.ndarray]) -> tuple | None:
        """Adam's state as one velocity and one second-moment buffer (``velocity[j]`` / ``second[j]`` become views
        of them), when every parameter could take its step in place (:func:`_in_place`) in float32 (the dtype
        the default format stores, so storing changes nothing): Adam is element-wise, so one step over the buffers gives each element the bits of its own step, with a
        dozen numpy calls a step instead of a dozen per parameter. None otherwise. Once the buffers exist, a step's
        gradients need only be float32 arrays of the parameters' shapes (the state's own dtype and shapes)."""
        if self._flat is not None:
            shapes = self._flat[3]
            if (len(grads) == len(shapes) and all(type(g) is np.ndarray and g.dtype == _FLOAT32 and g.shape == shape
                                                   for g, shape in zip(grads, shapes))):
                return self._flat
            return None
        if len(grads) != len(self.velocity) or not grads:
            return None
        if not all(_in_place(g, v, s) and g.dtype == np.float32 for g, v, s in zip(grads, self.velocity, self.second)):
            return None
        sizes = [v.size for v in self.velocity]
        offsets = np.cumsum([0] + sizes).tolist()
        velocity = np.concatenate([v.reshape(-1) for v in self.velocity])
        second = np.concatenate([s.reshape(-1) for s in self.second])
        spans = [(offsets[j], offsets[j + 1], v.shape) for j, v in enumerate(self.velocity)]
        self.velocity = [velocity[a:b].reshape(shape) for a, b, shape in spans]
        self.second = [second[a:b].reshape(shape) for a, b, shape in spans]
        self._flat = (velocity, second, spans, [shape for _, _, shape in spans])
        return self._flat

    def _adam_flat(self, grads: Sequence[np.ndarray]) -> list[np.ndarray]:
        """:meth:`_adam_in_place` over the flat buffers; each parameter's update a view of one array. With numba,
        :func:`adam_loop` (the same float32 operations on each element, fused into one pass: 2x faster on the
        digits MLP's 51 k parameters); else the numpy lines."""
        velocity, second, spans, _ = self._flat
        g = np.concatenate(grads, axis=None)
        kernel = _compiled()
        if kernel is None:
            update = self._adam_in_place(velocity, second, g)
        else:
            b1, b2 = ADAM_BETAS
            f = np.float32    # the float32 each Python float becomes in the numpy lines (NEP 50's weak scalars)
            update = np.empty_like(g)
            kernel(velocity, second, g, f(b1), f(1 - b1), f(b2), f(1 - b2), f(1 - b1 ** self.t),
                   f(1 - b2 ** self.t), f(ADAM_EPSILON), f(-self.learning_rate), update)
        return [update[a:b].reshape(shape) for a, b, shape in spans]

    def step(self, model: MLP, grads_w: list[np.ndarray], grads_b: list[np.ndarray], fmt: NumberFormat) -> None:
        n = model.layers
        names = [f"v{i + 1}" for i in range(n)] + [f"vb{i + 1}" for i in range(n)]
        for j, update in enumerate(self.updates(grads_w + grads_b, names, fmt)):
            if j < n:
                model.weights[j] = model.weights[j] + update
            else:
                model.biases[j - n] = model.biases[j - n] + update
        model.store(fmt)


_FLOAT32 = np.dtype(np.float32)


def adam_loop(velocity, second, g, b1, c1, b2, c2, bias1, bias2, epsilon, step, update):
    """:meth:`Optimizer._adam_in_place`'s lines on each element of float32 buffers, in their order: ``c1 = 1 - b1``
    and the others are the float32 constants those lines use. ``np.divide`` keeps numpy's division (no
    zero-division check, so the loop vectorises)."""
    for i in range(g.size):
        gi = g[i]
        v = velocity[i] * b1 + c1 * gi
        velocity[i] = v
        s = second[i] * b2 + (c2 * gi) * gi
        second[i] = s
        update[i] = np.divide(np.divide(v, bias1) * step, np.sqrt(np.divide(s, bias2)) + epsilon)


def _compiled():
    """:func:`adam_loop` compiled by numba (:func:`compiled_loop`, which keeps it), or None without numba."""
    return compiled_loop(adam_loop)


def _in_place(g: np.ndarray, velocity: np.ndarray, second: np.ndarray) -> bool:
    """Adam's state can take its step in place: arrays of one floating dtype and one shape (the step's
    results then have that dtype and shape, as the state already has)."""
    return (isinstance(g, np.ndarray) and isinstance(velocity, np.ndarray) and isinstance(second, np.ndarray)
            and g.dtype.kind == "f" and g.dtype == velocity.dtype == second.dtype
            and g.shape == velocity.shape == second.shape and g.ndim > 0)
