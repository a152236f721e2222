"""Gradual pruning with fine-tuning of the digits networks, at one granularity.

The networks are the float32 digits MLP and small CNN of :mod:`accel_sim.systems.nn.lowbit.network`,
trained dense first (:func:`accel_sim.systems.nn.lowbit.train.train_lowbit`, method ``fp32``). The
MLP's layers but the classifier, the CNN's convolutions (Mao et al. 2017 prune the convolutions), are
then pruned while training goes on, its density following Zhu & Gupta's
cubic schedule ("To prune, or not to prune", 2017, Eq. 1):

    s_t = s_f + (s_i - s_f) (1 - (t - t_0) / (n dt))^3,   t in {t_0, t_0 + dt, ..., t_0 + n dt}

(sparsity s = 1 - density, from s_i = 0 to the target s_f, a new mask every dt mini-batches over
:data:`PRUNE_EPOCHS` epochs), then fine-tuned for :data:`FINE_TUNE_EPOCHS` epochs with the final mask.
Masks are the granularities of :func:`accel_sim.foundations.compress.pruning.granularity_mask` (Mao
et al. 2017) on each layer's weights; a conv layer's ``(R S C, K)`` im2col matrix is viewed as
``(K, C, R, S)``. 2:4 (N:M along the reduction, Mishra et al. 2021's recipe) is one-shot: the mask is
set at the start and the network retrained for the same epochs. Pruned weights are held at zero after
every update. A pruned filter's bias / batch-norm shift stays: it is a constant the next layer's bias
can absorb, so the network is the compacted one.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.compress.pruning import granularity_mask, nm_mask
from accel_sim.foundations.threads import single_threaded_blas
from accel_sim.systems.nn.digits import DigitsData
from accel_sim.systems.nn.lowbit.layers import GemmLayer
from accel_sim.systems.nn.lowbit.network import Network
from accel_sim.systems.nn.lowbit.train import (
    FINAL_LEARNING_RATE_FRACTION,
    LOWBIT_SCHEDULE,
    digits_test_accuracy,
    softmax_cross_entropy,
)
from accel_sim.systems.nn.optim import Optimizer
from accel_sim.systems.nn.training import Schedule

ZHU_GUPTA_EXPONENT = 3   # Zhu & Gupta 2017, Eq. 1: cubic
PRUNE_EPOCHS = 3         # epochs over which the density falls (choice: the digits converge in ~10)
PRUNE_EVERY = 5          # mini-batches between mask updates (dt; ~20 mini-batches an epoch here)
FINE_TUNE_EPOCHS = 3     # epochs with the final mask (choice)
NM_PATTERN = (2, 4)      # Ampere's 2:4
VECTOR_RUN = 4           # a fully connected layer's vector: 4 weights along the reduction


def cubic_density(step: int, steps: int, final_density: float, initial_density: float = 1.0) -> float:
    """Zhu & Gupta's schedule as a density: ``initial`` at step 0, ``final`` from step ``steps`` on."""
    progress = min(max(step / steps, 0.0), 1.0) if steps > 0 else 1.0
    s_i, s_f = 1.0 - initial_density, 1.0 - final_density
    return 1.0 - (s_f + (s_i - s_f) * (1.0 - progress) ** ZHU_GUPTA_EXPONENT)


def layer_mask(layer: GemmLayer, granularity: str, density: float) -> np.ndarray:
    """Keep-mask of one layer's ``(fan_in, outputs)`` weights (``2:4`` or a granularity)."""
    w = layer.weights
    if granularity in ("filter", "channel"):  # at least one channel stays (the CNN's first layer reads one)
        channels = w.shape[1] if granularity == "filter" else w.shape[0] // (layer.kernel or 1) ** 2
        density = max(density, 1.0 / channels)
    if granularity == "2:4":
        return nm_mask(w, n=NM_PATTERN[0], m=NM_PATTERN[1], axis=0)
    if layer.kernel is None:
        return granularity_mask(w, granularity, density=density, run=VECTOR_RUN)
    k = layer.kernel
    stored = w.reshape(k, k, -1, w.shape[1]).transpose(3, 2, 0, 1)   # im2col rows (R, S, C) -> (K, C, R, S)
    return granularity_mask(stored, granularity, density=density).transpose(2, 3, 1, 0).reshape(w.shape)


def pruned_layers(network: Network) -> list[GemmLayer]:
    """The layers a granularity prunes: a CNN's convolutions, an MLP's layers but the classifier."""
    convolutions = [layer for layer in network.gemms if layer.kernel is not None]
    return convolutions if convolutions else network.gemms[:-1]


@dataclass(frozen=True)
class PrunedRun:
    test_accuracy: float
    density: float          # kept fraction of the pruned layers' weights (the masks' rounding)


def prune_gradually(dense: Network, data: DigitsData, granularity: str, density: float,
                    schedule: Schedule = LOWBIT_SCHEDULE, prune_epochs: int = PRUNE_EPOCHS,
                    fine_tune_epochs: int = FINE_TUNE_EPOCHS) -> PrunedRun:
    """A copy of ``dense`` pruned to ``density`` at ``granularity`` and fine-tuned (module doc)."""
    network = copy.deepcopy(dense)
    layers = pruned_layers(network)
    optimizer = Optimizer(network.parameters(), "adam", schedule.learning_rate * FINAL_LEARNING_RATE_FRACTION)
    rng = np.random.default_rng(schedule.seed + 2)
    n = data.x_train.shape[0]
    per_epoch = -(-n // schedule.batch_size)
    ramp = 0 if granularity == "2:4" else prune_epochs * per_epoch
    masks = [np.ones(layer.weights.shape, dtype=bool) for layer in layers]
    step = 0
    with single_threaded_blas():
        for _ in range(prune_epochs + fine_tune_epochs):
            order = rng.permutation(n)
            for start in range(0, n, schedule.batch_size):
                if step <= ramp and (step % PRUNE_EVERY == 0 or step == ramp):
                    target = cubic_density(step, ramp, density)
                    masks = [layer_mask(layer, granularity, target) for layer in layers]
                batch = order[start:start + schedule.batch_size]
                loss, grad = softmax_cross_entropy(network.forward(data.x_train[batch]), data.y_train[batch])
                network.backward(grad)
                network.add(optimizer.updates(network.gradients()))
                for layer, mask in zip(layers, masks):
                    layer.weights = layer.weights * mask
                step += 1
        kept = sum(int(np.count_nonzero(layer.weights)) for layer in layers) / sum(m.size for m in masks)
        return PrunedRun(digits_test_accuracy(network, data), kept)
