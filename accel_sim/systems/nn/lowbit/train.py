"""Training a low-bit network on the digits: seeded mini-batch Adam with the method's quantizers.

Same config, schedule and seed give the same result bit for bit (every random draw, the
batch order, stochastic binarization, DoReFa's gradient noise, comes from seeded generators).
The learning rate decays exponentially to ``FINAL_LEARNING_RATE_FRACTION`` of its start over
the run (BNN and XNOR-Net train with a decaying rate). INQ first trains in float32 for the
schedule, then per partition stage freezes a growing fraction of the weights at powers of two
and retrains the rest for ``inq_stage_epochs``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from accel_sim.systems.nn.digits import DigitsData
from accel_sim.systems.nn.lowbit.inq import IncrementalPowerOfTwoWeights
from accel_sim.systems.nn.lowbit.methods import LowBitConfig, check_config
from accel_sim.systems.nn.lowbit.network import Network, build_network
from accel_sim.systems.nn.optim import Optimizer
from accel_sim.systems.nn.training import Schedule
from accel_sim.foundations.threads import single_threaded_blas

FINAL_LEARNING_RATE_FRACTION = 0.1   # documented choice: lr decays 10x over a run
INQ_STAGE_EPOCHS = 4                 # retraining epochs per INQ stage (choice; the paper retrains each stage)
LOWBIT_SCHEDULE = Schedule(epochs=20, batch_size=64, learning_rate=0.01, optimizer="adam", seed=0)


@dataclass
class LowBitRun:
    config: LowBitConfig
    network: Network
    test_accuracy: float = float("nan")
    losses: list[float] = field(default_factory=list)
    test_accuracy_per_epoch: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0


def softmax_cross_entropy(logits: np.ndarray, labels: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean cross-entropy of ``logits`` and its gradient."""
    p = np.exp(logits - np.maximum.reduce(logits, 1, None, None, True))   # logits.max / .sum's reductions
    p /= np.add.reduce(p, 1, None, None, True)
    rows = np.arange(labels.size)
    loss = float(-np.mean(np.log(np.maximum(p[rows, labels], 1e-12))))
    p[rows, labels] -= 1
    return loss, np.divide(p, labels.size, out=p).astype(np.float32, copy=False)


def digits_test_accuracy(network: Network, data: DigitsData) -> float:
    return float(np.mean(network.predict(data.x_test) == data.y_test))


def _train_epochs(run: LowBitRun, data: DigitsData, schedule: Schedule, epochs: int, learning_rate: float,
                  rng: np.random.Generator, per_epoch_accuracy: bool = True) -> None:
    network = run.network
    optimizer = Optimizer(network.parameters(), "adam", learning_rate)
    decay = FINAL_LEARNING_RATE_FRACTION ** (1.0 / max(epochs, 1))
    n = data.x_train.shape[0]
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, schedule.batch_size):
            batch = order[start:start + schedule.batch_size]
            loss, grad = softmax_cross_entropy(network.forward(data.x_train[batch]), data.y_train[batch])
            network.backward(grad)
            network.add(optimizer.updates(network.gradients()))
            run.losses.append(loss)
        optimizer.learning_rate *= decay
        if per_epoch_accuracy:  # evaluation only: draws nothing, changes nothing the training reads
            run.test_accuracy_per_epoch.append(digits_test_accuracy(network, data))


def train_lowbit(data: DigitsData, config: LowBitConfig, schedule: Schedule = LOWBIT_SCHEDULE,
                 inq_stage_epochs: int = INQ_STAGE_EPOCHS, per_epoch_accuracy: bool = True) -> LowBitRun:
    """Train ``config``'s network with its method on ``data`` (``schedule.hidden``: the MLP's hidden sizes).
    ``per_epoch_accuracy=False`` skips the test accuracy after each epoch (``test_accuracy_per_epoch``
    stays empty; the final ``test_accuracy`` and everything else are the same)."""
    check_config(config)
    start = time.process_time()
    network = build_network(config, data.features, data.classes, schedule.hidden, schedule.seed)
    run = LowBitRun(config, network)
    rng = np.random.default_rng(schedule.seed + 1)
    with single_threaded_blas():
        float32_key = (config.network, config.shift_batch_norm, schedule, id(data), per_epoch_accuracy)
        known = _FLOAT32_TRAININGS.get(float32_key) if config.method in FLOAT32_FIRST else None
        if known is not None and known[0] is data:
            _restore(run, rng, known[1:])
        else:
            _train_epochs(run, data, schedule, schedule.epochs, schedule.learning_rate, rng, per_epoch_accuracy)
            if config.method in FLOAT32_FIRST:
                _remember(float32_key, data, run, rng)
        if config.method == "inq":
            _inq_stages(run, data, schedule, inq_stage_epochs, rng, per_epoch_accuracy)
        run.test_accuracy = digits_test_accuracy(network, data)   # one BLAS thread (as the CLI has) for API callers too
    run.cpu_seconds = time.process_time() - start
    return run


# INQ's first phase (its quantizers are the identity until a stage freezes weights: the same draws, the same
# arithmetic) is the float32 training of the same network: a float32 run of this process, same network, schedule,
# data and batch norm, is kept (its parameters, batch-norm statistics, losses and the batch generator's state) and
# INQ starts from it instead of training it again (low-bit-training and pruning-granularity train both).
FLOAT32_FIRST = ("fp32", "inq")
_FLOAT32_TRAININGS: dict[tuple, tuple] = {}
_FLOAT32_TRAININGS_KEPT = 4


def _layer_state(layer) -> dict[str, np.ndarray]:
    names = ("weights", "bias", "gamma", "beta", "running_mean", "running_var")
    return {name: getattr(layer, name).copy() for name in names if getattr(layer, name, None) is not None}


def _remember(key: tuple, data: DigitsData, run: LowBitRun, rng: np.random.Generator) -> None:
    if len(_FLOAT32_TRAININGS) >= _FLOAT32_TRAININGS_KEPT:
        _FLOAT32_TRAININGS.pop(next(iter(_FLOAT32_TRAININGS)))
    _FLOAT32_TRAININGS[key] = (data, [_layer_state(layer) for layer in run.network.layers], list(run.losses),
                               list(run.test_accuracy_per_epoch), rng.bit_generator.state)


def _restore(run: LowBitRun, rng: np.random.Generator, known: tuple) -> None:
    states, losses, accuracies, generator = known
    for layer, state in zip(run.network.layers, states):
        for name, value in state.items():
            setattr(layer, name, value.copy())
    run.losses.extend(losses)
    run.test_accuracy_per_epoch.extend(accuracies)
    rng.bit_generator.state = generator


def _inq_stages(run: LowBitRun, data: DigitsData, schedule: Schedule, stage_epochs: int,
                rng: np.random.Generator, per_epoch_accuracy: bool = True) -> None:
    """INQ: per cumulative fraction, freeze that much of each layer at powers of two, retrain the rest
    (after the last stage only batch norm and biases still train)."""
    stage_rate = schedule.learning_rate * FINAL_LEARNING_RATE_FRACTION
    for fraction in run.config.partition:
        for gemm in run.network.gemms:
            if isinstance(gemm.q.weights, IncrementalPowerOfTwoWeights):
                gemm.weights = gemm.q.weights.quantize_fraction(gemm.weights, fraction)
        _train_epochs(run, data, schedule, stage_epochs, stage_rate, rng, per_epoch_accuracy)
