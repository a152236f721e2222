"""A LeNet-300-100-style multilayer perceptron (fully connected + ReLU, softmax output).

Weights are ``(in, out)`` matrices, so a layer is the GEMM ``(batch x in) @ (in x out)``:
exactly the :class:`accel_sim.foundations.workload.GemmLayer` the accelerator models simulate. Every
tensor goes through a :class:`~accel_sim.systems.nn.number_format.NumberFormat` under a stable name:
``x`` (input), ``w{l}`` / ``b{l}`` (parameters), ``z{l}`` (pre-activations, GEMM results),
``dz{l}`` (their gradients), ``da{l}`` (gradients of activations, GEMM results), ``dw{l}`` /
``db{l}`` (parameter gradients, ``dw`` from a GEMM). Layers count from 1.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.systems.nn.number_format import NumberFormat
from accel_sim.foundations.workload.layer import GemmLayer


@dataclass(frozen=True)
class ForwardPass:
    inputs: tuple[np.ndarray, ...]   # the input of each layer (quantized)
    pre: tuple[np.ndarray, ...]      # z of each layer (quantized)
    probabilities: np.ndarray


class MLP:
    """Fully connected layers ``sizes[0] -> ... -> sizes[-1]``, He-initialised from ``seed``."""

    def __init__(self, sizes: tuple[int, ...], seed: int = 0):
        if len(sizes) < 2 or any(int(s) < 1 for s in sizes):
            raise ValueError(f"an MLP needs at least two positive layer sizes, got {sizes}")
        rng = np.random.default_rng(seed)
        self.sizes = tuple(int(s) for s in sizes)
        self.weights = [(rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32)
                        for a, b in zip(self.sizes, self.sizes[1:])]
        self.biases = [np.zeros(b, dtype=np.float32) for b in self.sizes[1:]]
        self.masks: list[np.ndarray | None] = [None] * len(self.weights)  # pruning: kept weights

    @property
    def layers(self) -> int:
        return len(self.weights)

    def store(self, fmt: NumberFormat) -> None:
        """Put the parameters in the format (after initialisation or an update)."""
        for i in range(self.layers):
            w = self.weights[i] if self.masks[i] is None else self.weights[i] * self.masks[i]
            self.weights[i] = fmt.quantize(f"w{i + 1}", w)
            self.biases[i] = fmt.quantize(f"b{i + 1}", self.biases[i])

    def forward(self, x: np.ndarray, fmt: NumberFormat, train: bool = True) -> ForwardPass:
        q = fmt.quantize if train else (lambda name, t, from_gemm=False: fmt.narrow(name, t))
        a = q("x", x)
        inputs, pre = [], []
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            inputs.append(a)
            z = q(f"z{i + 1}", a @ w + b, from_gemm=True)
            pre.append(z)
            a = np.maximum(z, 0) if i < self.layers - 1 else z
        logits = a - a.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return ForwardPass(tuple(inputs), tuple(pre), (e / e.sum(axis=1, keepdims=True)).astype(np.float32))

    def backward(self, fp: ForwardPass, labels: np.ndarray,
                 fmt: NumberFormat) -> tuple[list[np.ndarray], list[np.ndarray], float]:
        """Gradients of the mean cross-entropy (weights, biases) and the loss itself."""
        batch = labels.size
        p = fp.probabilities
        loss = float(-np.mean(np.log(np.maximum(p[np.arange(batch), labels], 1e-12))))
        dz = p.copy()
        dz[np.arange(batch), labels] -= 1
        dz = fmt.quantize(f"dz{self.layers}", dz / batch)
        grads_w: list[np.ndarray] = [np.empty(0)] * self.layers
        grads_b: list[np.ndarray] = [np.empty(0)] * self.layers
        for i in reversed(range(self.layers)):
            grads_w[i] = fmt.quantize(f"dw{i + 1}", fp.inputs[i].T @ dz, from_gemm=True)
            grads_b[i] = fmt.quantize(f"db{i + 1}", dz.sum(axis=0))
            if i > 0:
                da = fmt.quantize(f"da{i}", dz @ self.weights[i].T, from_gemm=True)
                dz = fmt.quantize(f"dz{i}", da * (fp.pre[i - 1] > 0))
        return grads_w, grads_b, loss

    def predict(self, x: np.ndarray, fmt: NumberFormat) -> np.ndarray:
        return self.forward(x, fmt, train=False).probabilities.argmax(axis=1)

    def training_gemms(self, batch: int) -> tuple[tuple[str, GemmLayer], ...]:
        """The GEMMs of one training step at ``batch``, named by the tensor each produces:
        forward ``z{l}``, weight gradients ``dw{l}``, activation gradients ``da{l}`` (not for
        the first layer, whose input needs no gradient)."""
        gemms = []
        for i, (a, b) in enumerate(zip(self.sizes, self.sizes[1:])):
            gemms.append((f"z{i + 1}", GemmLayer(f"z{i + 1}", m=batch, k=a, n=b)))
        for i in reversed(range(self.layers)):
            a, b = self.sizes[i], self.sizes[i + 1]
            gemms.append((f"dw{i + 1}", GemmLayer(f"dw{i + 1}", m=a, k=batch, n=b)))
            if i > 0:
                gemms.append((f"da{i}", GemmLayer(f"da{i}", m=batch, k=b, n=a)))
        return tuple(gemms)
