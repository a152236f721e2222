"""The backward pass of a layer as GEMMs, their shapes derived from the forward layer (pure).

A layer's GEMM view (:class:`~accel_sim.foundations.workload.layer.GemmShape`) is ``Y (m x n) = X (m x k) @ W
(k x n)``, ``groups`` times (``m`` output pixels x batch, ``k`` the reduction, ``n`` outputs per
group). Back-propagation through it needs two products, independent of each other:

- the **input error** ``dX (m x k) = dY (m x n) @ W^T (n x k)``: a GEMM of ``m x n x k`` per group
  (for a convolution, the im2col view of the transposed convolution; the scatter back to the input
  plane, col2im, is an addition, not a MAC);
- the **weight gradient** ``dW (k x n) = X^T (k x m) @ dY (m x n)``: a GEMM of ``k x m x n`` per group.

Each has as many MACs as the forward GEMM. The first layer of a network needs no input error (its
input is the data), as in Caffe's ``propagate_down`` and :meth:`accel_sim.systems.nn.mlp.MLP.training_gemms`.
A grouped layer's backward GEMMs are batched GEMMs of ``groups`` instances.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from accel_sim.foundations.workload.layer import BatchedGemmLayer, ConvLayer, GemmLayer, Layer, NetworkLayer

PASSES = ("forward", "input_error", "weight_gradient")


@dataclass(frozen=True)
class TrainingGemms:
    """One layer's GEMMs in a training step; ``input_error`` is None for a layer whose input needs no error."""

    forward: NetworkLayer
    input_error: NetworkLayer | None
    weight_gradient: NetworkLayer

    def passes(self) -> tuple[tuple[str, NetworkLayer], ...]:
        """``(pass name, layer)`` for every GEMM this layer runs, forward first."""
        return tuple((name, layer) for name, layer in zip(PASSES, (self.forward, self.input_error,
                                                                    self.weight_gradient)) if layer is not None)


def at_batch(layer: Layer, batch: int) -> Layer:
    """``layer`` with ``batch`` samples: a convolution's ``batch``, a fully connected layer's ``m`` rows
    (a workload's fc layers are written at batch 1, one row)."""
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    if isinstance(layer, ConvLayer):
        return dataclasses.replace(layer, batch=layer.batch * batch)
    return dataclasses.replace(layer, m=layer.m * batch)


def _gemm(name: str, m: int, k: int, n: int, groups: int) -> NetworkLayer:
    if groups == 1:
        return GemmLayer(name, m=m, k=k, n=n)
    return BatchedGemmLayer(name, instances=groups, m=m, k=k, n=n)


def training_gemms(layer: Layer, needs_input_error: bool = True) -> TrainingGemms:
    """The forward layer and its two backward GEMMs (dense: densities and storage are the forward
    layer's business; gradients are dense)."""
    g = layer.gemm()
    input_error = _gemm(f"{layer.name}.input_error", g.m, g.n, g.k, g.groups) if needs_input_error else None
    weight_gradient = _gemm(f"{layer.name}.weight_gradient", g.k, g.m, g.n, g.groups)
    return TrainingGemms(layer, input_error, weight_gradient)
