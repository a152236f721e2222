"""Dynamic fixed point as a training loop's number format: statistics + settings + update step.

:class:`DynamicFixedPointUnit` is what a training loop talks to. Every tensor has a name
(``"z1"``, ``"dw2"``, ...); :meth:`DynamicFixedPointUnit.quantize` narrows a tensor to the
data type at the point the settings block holds for it, while the statistics block counts
the leading-bit positions of the results (in the accumulator, before narrowing) into the
statistics store. :meth:`end_step` is the update step between iterations: every
``update_interval`` steps software reads the histograms and the rule picks each tensor's
next point. A tensor produced by a GEMM is re-run at once (counted) when the point its own
histogram implies (max rule) differs from the one it ran with by more than
``rerun_threshold`` bits.

``static=True`` is the comparison without the update step: each tensor's point is set once,
from its first statistics (max rule), and then never moves.

The numerics of the statistics block and the rules are
:mod:`accel_sim.foundations.compress.quantization.leading_bit_statistics`; the cycles and energy of the
hardware that runs them are the ``dlu`` family's (:mod:`accel_sim.systems.nn.dlu_training` ties the two).
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import numpy as np

from accel_sim.foundations.compress.quantization.leading_bit_statistics import (
    PointRange,
    accumulator_levels,
    check_accumulator_bits,
    check_bits,
    check_point_in_word,
    check_rule,
    max_rule_shift,
    next_point_of_counts,
)
from accel_sim.foundations.compress.quantization.statistics_kernel import draws_of_halves, observed_narrowed
from accel_sim.foundations.compress.quantization.tensor import ROUNDING_MODES


@dataclass
class TensorRecord:
    """What the unit knows about one tensor: point history, saturation and re-run counts."""

    fraction_bits: int
    points: list[int] = field(default_factory=list)     # point used at each step
    histogram: np.ndarray | None = None                 # statistics store since the last update
    elements: int = 0
    saturated: int = 0
    reruns: int = 0
    calibrated: bool = False


@dataclass(frozen=True)
class UnitSettings:
    """The numerics of a dynamic fixed-point unit (the numerics-relevant part of a ``dlu`` section)."""

    bits: int
    rule: str = "overflow"
    rounding: str = "nearest"
    accumulator_bits: int = 32
    initial_point: int = 2
    point_range: PointRange = PointRange(-16, 40)
    max_overflow_rate: float = 1e-4
    percentile: float = 0.9999
    update_interval: int = 1
    rerun_threshold: int = 2
    split_by_sign: bool = False
    static: bool = False

    def __post_init__(self) -> None:
        check_bits(self.bits)
        check_rule(self.rule)
        check_point_in_word(self.initial_point, self.bits)
        self.point_range.check(self.initial_point, "initial point")
        if self.rounding not in ROUNDING_MODES:
            raise ValueError(f"unknown rounding {self.rounding!r}; expected {' or '.join(ROUNDING_MODES)}")
        if self.accumulator_bits < 2 * self.bits or self.accumulator_bits > 53:
            raise ValueError(f"accumulator_bits must be in {2 * self.bits} .. 53, got {self.accumulator_bits}")
        if self.update_interval < 1:
            raise ValueError(f"update_interval must be >= 1, got {self.update_interval}")



class DynamicFixedPointUnit:
    """Per-tensor dynamic fixed point driven by the simulated statistics hardware."""

    def __init__(self, settings: UnitSettings, seed: int = 0, watch: tuple[str, ...] = ()):
        self.settings = settings
        self.rng = np.random.default_rng(seed) if settings.rounding == "stochastic" else None
        self.tensors: dict[str, TensorRecord] = {}
        self.step = 0
        self.watch = watch
        self.snapshots: dict[str, list[tuple[int, int, np.ndarray]]] = {name: [] for name in watch}
        self.results_observed = 0   # results through the statistics block (re-runs included)
        self.readouts = 0           # histograms read out by software
        check_accumulator_bits(settings.accumulator_bits)
        self._reruns_checked = not settings.static and settings.rerun_threshold >= 0
        self._raw_draws = (self.rng is not None and type(self.rng.bit_generator) is np.random.PCG64
                           and sys.byteorder == "little")
        self._half_buffered = False   # the generator holds half of a 64-bit output (an odd count drawn so far)

    @property
    def bits(self) -> int:
        return self.settings.bits

    def _observe(self, x: np.ndarray, f: int) -> tuple[np.ndarray, int, np.ndarray, int]:
        """``(histogram, top bucket, values, saturated)`` of ``x`` at point ``f``: accumulator_levels then
        histogram_of_levels and the narrowing to the word, in one pass (the same draws and bits; the accumulator
        width was checked when the unit was made). Stochastic rounding's draws go in as the raw halves they are
        made of where :meth:`_halves` gives them (the loop makes each draw as it reads it)."""
        s = self.settings
        noise = halves = None
        if self.rng is not None:
            halves = self._halves(x.size)
            if halves is None:
                noise = self._draws(x.shape)
        histogram, top, values, saturated = observed_narrowed(x, f, s.accumulator_bits, s.bits, noise,
                                                              s.split_by_sign, halves)
        self.results_observed += values.size
        return histogram, top, values, saturated

    def _halves(self, count: int) -> np.ndarray | None:
        """``count`` uint32 halves of the raw PCG64 outputs, the ones ``self.rng.random(count, dtype=np.float32)``
        makes its draws of (:func:`draws_of_halves`), when no half is kept and the count is even (see
        :meth:`_draws`); else None (numpy must draw)."""
        if self._raw_draws and not self._half_buffered and count % 2 == 0:
            return self.rng.bit_generator.random_raw(count // 2).view(np.uint32)
        return None

    def _draws(self, shape: tuple[int, ...]) -> np.ndarray:
        """``self.rng.random(shape, dtype=np.float32)``. numpy makes each float32 from a 32-bit half of a PCG64
        output, ``(half >> 8) * 2**-24`` (exact), the low half first and the high half kept for the next draw;
        when no half is kept and the count is even, the same floats come from the raw outputs (their halves in
        memory order on a little-endian machine, :meth:`_halves`) at half the cost. Otherwise numpy draws them."""
        count = math.prod(shape)
        halves = self._halves(count)
        if halves is not None:
            return draws_of_halves(halves).reshape(shape)
        self._half_buffered ^= count % 2 == 1
        return self.rng.random(shape, dtype=np.float32)

    def quantize(self, name: str, x: np.ndarray, from_gemm: bool = False) -> np.ndarray:
        """``x`` narrowed to the data type at ``name``'s point (float32 of the fixed-point values)."""
        s = self.settings
        record = self.tensors.get(name)
        if record is None:
            record = self.tensors[name] = TensorRecord(s.initial_point)
        x = np.asarray(x)
        f = record.fraction_bits
        histogram, top, values, saturated = self._observe(x, f)
        needs_calibration = s.static and not record.calibrated
        if needs_calibration or self._reruns_checked:
            # max_rule_shift from the top bucket (an empty histogram: max_rule_shift's own error)
            shift = s.bits - 2 - (top - 1) if top >= 0 else max_rule_shift(histogram, s.bits)
            implied = s.point_range.clamp(f + shift)
            if needs_calibration or abs(implied - f) > s.rerun_threshold:
                record.reruns += int(implied != f)
                f = record.fraction_bits = implied
                histogram, top, values, saturated = self._observe(x, f)
                record.calibrated = True
        record.points.append(f)
        record.histogram = histogram if record.histogram is None else record.histogram + histogram
        record.saturated += saturated
        record.elements += values.size
        if name in self.snapshots:
            self.snapshots[name].append((self.step, f, histogram))
        return values

    def narrow(self, name: str, x: np.ndarray) -> np.ndarray:
        """``x`` at ``name``'s current point without touching the statistics (inference)."""
        s = self.settings
        record = self.tensors.get(name)
        f = record.fraction_bits if record else s.initial_point
        levels = accumulator_levels(x, f, s.accumulator_bits)
        high = math.ldexp(1.0, s.bits - 1)
        narrowed = np.clip(levels, -high, high - 1)
        return (narrowed * math.ldexp(1.0, -f)).astype(np.float32)

    def end_step(self) -> None:
        """The update step between iterations: read the histograms, pick the next points."""
        self.step += 1
        if self.settings.static or self.step % self.settings.update_interval:
            return
        s = self.settings
        for record in self.tensors.values():
            if record.histogram is None:
                continue
            self.readouts += 1
            histogram = record.histogram
            counts = (histogram.sum(axis=0) if histogram.ndim == 2 else histogram).tolist()
            record.fraction_bits = next_point_of_counts(counts, s.bits, record.fraction_bits, s.rule, s.point_range,
                                                        s.max_overflow_rate, s.percentile)   # settings checked
            record.histogram = None

    @property
    def overflow_rate(self) -> float:
        elements = sum(r.elements for r in self.tensors.values())
        return sum(r.saturated for r in self.tensors.values()) / elements if elements else 0.0

    def reruns(self, name: str) -> int:
        record = self.tensors.get(name)
        return record.reruns if record else 0
