"""The registry of low-bit training methods: each name gives its activation function and the
quantizers of a layer's weights, inputs and output gradients (:mod:`.quantizer`'s interface).

A method's configuration is a :class:`LowBitConfig`, validated once (:func:`check_config`) into
an :class:`~accel_sim.foundations.errors.InputError` naming the field and what was expected.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np

from accel_sim.foundations.errors import InputError, Problem
from accel_sim.systems.nn.lowbit.binary_connect import BinaryConnectWeights
from accel_sim.systems.nn.lowbit.bnn import SignActivations
from accel_sim.systems.nn.lowbit.dorefa import FULL_PRECISION_BITS, DorefaActivations, DorefaGradients, DorefaWeights
from accel_sim.systems.nn.lowbit.inq import INQ_PARTITION, IncrementalPowerOfTwoWeights, partition_problem
from accel_sim.systems.nn.lowbit.log_quant import LOG_BASES, LogActivations, LogWeights
from accel_sim.systems.nn.lowbit.quantizer import GradientQuantizer, InputQuantizer, WeightQuantizer
from accel_sim.systems.nn.lowbit.ttq import TrainedTernaryWeights
from accel_sim.systems.nn.lowbit.twn import TernaryWeights
from accel_sim.systems.nn.lowbit.xnor_net import XnorInputs, XnorWeights

NETWORKS = ("mlp", "cnn")


@dataclass(frozen=True)
class LowBitConfig:
    """Which method, on which network, at which widths.

    ``weight_bits`` / ``activation_bits`` / ``gradient_bits``: DoReFa (1 .. 32; 32 = float),
    INQ (weights, 2 .. 8), log (weights 2 .. 8 with the sign, activations 1 .. 8 unsigned);
    None takes the method's default. ``partition``: INQ's cumulative fractions.
    ``full_precision_ends``: the first layer's weights and the last layer's weights and input
    stay in float32 (XNOR-Net's and BMXNet's choice).
    """

    method: str = "fp32"
    network: str = "mlp"
    weight_bits: int | None = None
    activation_bits: int | None = None
    gradient_bits: int | None = None
    partition: tuple[float, ...] = INQ_PARTITION
    log_base: str = "2"
    full_precision_ends: bool = True
    shift_batch_norm: bool = False

    def bits(self, which: str) -> int:
        given = getattr(self, f"{which}_bits")
        return int(given) if given is not None else METHODS[self.method].default_bits[which]


@dataclass(frozen=True)
class Method:
    """A training method: activation, per-layer quantizer factories, default and allowed widths."""

    title: str
    activation: str
    weights: Callable[[LowBitConfig, np.random.Generator], WeightQuantizer]
    inputs: Callable[[LowBitConfig], InputQuantizer]
    gradients: Callable[[LowBitConfig, np.random.Generator], GradientQuantizer]
    default_bits: dict[str, int]                  # weight / activation / gradient
    bit_ranges: dict[str, tuple[int, int]]        # the widths a user may set, and their range


def _no_bits() -> dict:
    return {"weight": FULL_PRECISION_BITS, "activation": FULL_PRECISION_BITS, "gradient": FULL_PRECISION_BITS}


def _method(title, activation, weights, inputs=None, gradients=None, default_bits=None, bit_ranges=None) -> Method:
    return Method(title, activation, weights, inputs or (lambda config: InputQuantizer()),
                  gradients or (lambda config, rng: GradientQuantizer()),
                  {**_no_bits(), **(default_bits or {})}, bit_ranges or {})


METHODS: dict[str, Method] = {
    "fp32": _method("float32", "relu", lambda c, rng: WeightQuantizer()),
    "binaryconnect": _method("BinaryConnect (deterministic)", "relu", lambda c, rng: BinaryConnectWeights()),
    "binaryconnect-stochastic": _method("BinaryConnect (stochastic)", "relu",
                                        lambda c, rng: BinaryConnectWeights(stochastic=True, rng=rng)),
    "bnn": _method("BNN", "hardtanh", lambda c, rng: BinaryConnectWeights(), lambda c: SignActivations()),
    "xnor-net": _method("XNOR-Net", "hardtanh", lambda c, rng: XnorWeights(), lambda c: XnorInputs()),
    "twn": _method("TWN", "relu", lambda c, rng: TernaryWeights()),
    "ttq": _method("TTQ", "relu", lambda c, rng: TrainedTernaryWeights()),
    "dorefa": _method("DoReFa", "clip01", lambda c, rng: DorefaWeights(c.bits("weight")),
                      lambda c: DorefaActivations(c.bits("activation")),
                      lambda c, rng: DorefaGradients(c.bits("gradient"), rng),
                      default_bits={"weight": 4, "activation": 4, "gradient": FULL_PRECISION_BITS},
                      bit_ranges={k: (1, FULL_PRECISION_BITS) for k in ("weight", "activation", "gradient")}),
    "inq": _method("INQ", "relu", lambda c, rng: IncrementalPowerOfTwoWeights(c.bits("weight")),
                   default_bits={"weight": 5}, bit_ranges={"weight": (2, 8)}),
    "log": _method("log quantization", "relu", lambda c, rng: LogWeights(c.bits("weight"), c.log_base),
                   lambda c: LogActivations(c.bits("activation"), c.log_base),
                   default_bits={"weight": 4, "activation": 3}, bit_ranges={"weight": (2, 8), "activation": (1, 8)}),
}


def config_problems(config: LowBitConfig, source: str, name: Callable[[str], str] = str) -> list[Problem]:
    """Every problem of ``config`` (``name`` turns a field name into what the user wrote, e.g. an option)."""
    if config.method not in METHODS:
        return [Problem(source, name("method"), f"unknown method {config.method!r}; expected one of "
                                                f"{', '.join(METHODS)}")]
    problems = []
    method = METHODS[config.method]
    if config.network not in NETWORKS:
        problems.append(Problem(source, name("network"), f"unknown network {config.network!r}; expected "
                                                         f"{' or '.join(NETWORKS)}"))
    for which in ("weight", "activation", "gradient"):
        given = getattr(config, f"{which}_bits")
        if given is None:
            continue
        if which not in method.bit_ranges:
            problems.append(Problem(source, name(f"{which}_bits"), f"method {config.method} has no {which} width"))
            continue
        low, high = method.bit_ranges[which]
        if isinstance(given, bool) or not isinstance(given, (int, np.integer)) or not low <= given <= high:
            problems.append(Problem(source, name(f"{which}_bits"), f"{method.title} {which} bits must be an "
                                                                   f"integer in {low} .. {high}, got {given!r}"))
    if config.method == "inq" and (problem := partition_problem(config.partition)) is not None:
        problems.append(Problem(source, name("partition"), f"INQ partition: {problem}"))
    if config.log_base not in LOG_BASES:
        problems.append(Problem(source, name("log_base"), f"unknown log base {config.log_base!r}; expected "
                                                          f"{' or '.join(LOG_BASES)}"))
    return problems


def check_config(config: LowBitConfig, source: str = "low-bit training config",
                 name: Callable[[str], str] = str) -> LowBitConfig:
    """``config`` if it is valid, else an :class:`InputError` with every problem."""
    problems = config_problems(config, source, name)
    if problems:
        raise InputError(problems)
    return config


def config_from_mapping(values: dict, source: str = "low-bit training config") -> LowBitConfig:
    """A config from a plain mapping (a YAML section, a study row); unknown keys are errors."""
    known = {f.name for f in fields(LowBitConfig)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise InputError([Problem(source, key, f"unknown key; expected one of {', '.join(sorted(known))}")
                          for key in unknown])
    if "partition" in values:
        values = {**values, "partition": tuple(values["partition"])}
    return check_config(LowBitConfig(**values), source)
