"""The training loop: seeded mini-batch training of an :class:`MLP` through a number format.

Same seed and schedule give the same batches, the same initial weights and (float32 or a
deterministic format) the same result bit for bit.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from accel_sim.foundations.threads import single_threaded_blas
from accel_sim.systems.nn.digits import DigitsData
from accel_sim.systems.nn.mlp import MLP
from accel_sim.systems.nn.number_format import Float32, NumberFormat
from accel_sim.systems.nn.optim import Optimizer

LENET_300_100_HIDDEN = (300, 100)  # LeCun et al. 1998; the input here is 8x8 = 64 pixels


@dataclass(frozen=True)
class Schedule:
    """How long and how fast to train. Defaults: a few seconds on one core, > 95 % in float32."""

    epochs: int = 20
    batch_size: int = 64
    learning_rate: float = 0.1
    momentum: float = 0.9
    optimizer: str = "sgd"
    hidden: tuple[int, ...] = LENET_300_100_HIDDEN
    seed: int = 0

    def __post_init__(self) -> None:
        if self.epochs < 0 or self.batch_size < 1:
            raise ValueError(f"epochs must be >= 0 and batch_size >= 1, got {self.epochs}, {self.batch_size}")


DEFAULT_SCHEDULE = Schedule()


@dataclass
class TrainingRun:
    model: MLP
    fmt: NumberFormat
    schedule: Schedule
    losses: list[float] = field(default_factory=list)          # per step
    test_accuracy_per_epoch: list[float] = field(default_factory=list)
    steps: int = 0

    @property
    def test_accuracy(self) -> float:
        return self.test_accuracy_per_epoch[-1] if self.test_accuracy_per_epoch else float("nan")


def accuracy(model: MLP, x: np.ndarray, y: np.ndarray, fmt: NumberFormat | None = None) -> float:
    return float(np.mean(model.predict(x, fmt or Float32()) == y))




def train(data: DigitsData, schedule: Schedule = DEFAULT_SCHEDULE, fmt: NumberFormat | None = None,
          model: MLP | None = None, per_epoch_accuracy: bool = True) -> TrainingRun:
    """Train ``model`` (default: a fresh seeded MLP) on ``data`` with every tensor in ``fmt``.

    A pruned model (``model.masks``) keeps its zeros: only surviving weights are retrained.
    ``per_epoch_accuracy=False``: the test accuracy only after the last epoch (``test_accuracy`` is the
    same; evaluation narrows without statistics or random draws, so the training is the same too).
    """
    fmt = fmt if fmt is not None else Float32()
    model = model if model is not None else MLP((data.features, *schedule.hidden, data.classes), schedule.seed)
    optimizer = Optimizer(model, schedule.optimizer, schedule.learning_rate, schedule.momentum)
    rng = np.random.default_rng(schedule.seed + 1)
    run = TrainingRun(model, fmt, schedule)
    model.store(fmt)
    n = data.x_train.shape[0]
    with single_threaded_blas():
        _epochs(run, data, optimizer, rng, n, per_epoch_accuracy)
    return run


def _epochs(run: TrainingRun, data: DigitsData, optimizer: Optimizer, rng: np.random.Generator, n: int,
            per_epoch_accuracy: bool = True) -> None:
    model, fmt, schedule = run.model, run.fmt, run.schedule
    for epoch in range(schedule.epochs):
        order = rng.permutation(n)
        for start in range(0, n, schedule.batch_size):
            batch = order[start:start + schedule.batch_size]
            forward = model.forward(data.x_train[batch], fmt)
            grads_w, grads_b, loss = model.backward(forward, data.y_train[batch], fmt)
            optimizer.step(model, grads_w, grads_b, fmt)
            fmt.end_step()
            run.losses.append(loss)
            run.steps += 1
        if per_epoch_accuracy or epoch == schedule.epochs - 1:
            run.test_accuracy_per_epoch.append(accuracy(model, data.x_test, data.y_test, fmt))
