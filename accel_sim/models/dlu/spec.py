"""The ``dlu:`` section of an arch config (family: dlu).

A Fujitsu-DLU-style processor: ``processing_units`` units of ``elements_per_unit`` elements,
each element a ``simd_lanes``-lane SIMD datapath of ``lane_bits``-bit lanes. A narrower data
type packs ``lane_bits / bits`` operations into one lane (same area, more operations per
cycle). Next to each unit's outputs sits the statistics block (leading-bit detector and
histogram counters); a settings block holds the point position per tensor; an update rule
picks the next point from the histogram between steps (numerics:
:mod:`accel_sim.foundations.compress.quantization.leading_bit_statistics`).

Facts Fujitsu has published are cited to where it published them; what Fujitsu has not published is a parameter with
an ``estimate:`` source saying how the default was chosen.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.compress.quantization.leading_bit_statistics import UPDATE_RULES
from accel_sim.foundations.compress.quantization.tensor import ROUNDING_MODES
from accel_sim.foundations.config.schema import spec_field

DLU_TALK = ("T. Maruyama, Fujitsu HPC and AI processors, ISC 2017, as reported by TOP500.org (M. Feldman, "
            "'Fujitsu Will Pursue AI with Custom-Built Processor', 10 July 2017)")
STATS = ("Fujitsu Laboratories press release, 24 April 2017 (xSIG 2017), 'Fujitsu Develops Circuit Technology to "
         "Improve Energy Efficiency of Hardware Used for Deep Learning'")
COURBARIAUX = "Courbariaux, Bengio & David, Training deep neural networks with low precision multiplications, arXiv 1412.7024 (2014)"
# Data types of the datapath: name -> bits of one operand. FP32, FP16, INT16, INT8 are the DLU's
# native types (Fujitsu, ISC 2017); INT4, ternary (2-bit codes) and binary (XNOR-popcount) are the extensions
# the issue asks for.
DATA_TYPE_BITS = {"fp32": 32, "fp16": 16, "int16": 16, "int8": 8, "int4": 4, "ternary": 2, "binary": 1}
FIXED_POINT_TYPES = ("int16", "int8", "int4")


@dataclass(frozen=True)
class DLUSpec:
    """Statistics-driven dynamic fixed-point processor (Fujitsu DLU style)."""

    processing_units: int = spec_field(
        "Processing units (DLU 'DPUs') on the chip; work is spread evenly over them.", 4, positive=True,
        source=f"estimate: {DLU_TALK} shows several units but no count, so 4 is a parameter")
    elements_per_unit: int = spec_field(
        "Processing elements per unit (DLU 'DPEs').", 16, positive=True, source=f"{DLU_TALK}: 16 DPEs per DPU")
    simd_lanes: int = spec_field(
        "SIMD lanes per element at the full lane width.", 8, positive=True, source=f"{DLU_TALK}: 8 SIMD units per DPE")
    lane_bits: int = spec_field(
        "Width of one SIMD lane; a type of b bits packs lane_bits / b operations into a lane.", 32,
        positive=True, source="estimate: FP32 lanes (the widest native type), narrower types packed into them: half the width, twice the "
               "operations in the same area, as subword-parallel SIMD does")
    data_type: str = spec_field(
        "Datapath type: fp32, fp16, int16 / int8 / int4 (dynamic fixed point), ternary or binary "
        "(XNOR + popcount with a scale).", "int16", choices=tuple(DATA_TYPE_BITS),
        source=f"{DLU_TALK}: native types FP32, FP16, INT16, INT8")
    accumulator_bits: int = spec_field(
        "Width of each lane's accumulator (fixed-point types; float types accumulate in FP32).", 32,
        positive=True, source="common practice: 32-bit accumulators for 8/16-bit MACs (TPU v1)")
    rounding: str = spec_field(
        "Rounding when a result is narrowed to the data type: nearest or stochastic "
        "(floor(x 2^f + U[0,1)), needs a random source per result).", "nearest", choices=ROUNDING_MODES,
        source="nearest; stochastic as Gupta et al., Deep Learning with Limited Numerical Precision, ICML 2015")
    statistics: bool = spec_field(
        "Statistics block present: every fixed-point result goes through the leading-bit detector "
        "and its histogram counter.", True, source=f"{STATS}: a block that analyses the results and a store of their distribution")
    split_by_sign: bool = spec_field(
        "Keep separate histograms for positive and negative results (twice the counters).", False,
        source="estimate: an option (off by default); the press release does not say whether signs are counted apart")
    stats_results_per_cycle: int = spec_field(
        "Results one unit's statistics block takes per cycle.", 16, positive=True,
        source="estimate: one leading-bit detector per element, so one result per element per cycle")
    stats_latency: int = spec_field(
        "Pipeline latency of the statistics block (detector, then counter increment).", 2, minimum=0,
        unit="cycles", source="estimate: two pipeline stages (priority encoder, counter add)")
    histogram_counter_bits: int = spec_field(
        "Width of each histogram counter in the statistics store.", 32, positive=True,
        source="estimate: wide enough for 2^32 results per step without overflow")
    readout_words_per_cycle: int = spec_field(
        "Histogram counters read out per cycle when software reads the statistics store.", 1,
        positive=True, source="estimate: one counter per cycle over the control bus")
    local_memory: int = spec_field(
        "On-chip operand memory per unit; the operand tiles of all units are double-buffered in it.",
        "256 KiB", unit="size", positive=True,
        source="estimate: Fujitsu has not published the DPU local memory size")
    update_rule: str = spec_field(
        "How the next point position is picked from the histogram: overflow (Courbariaux et al.), "
        "max (Ristretto) or percentile.", "overflow", choices=UPDATE_RULES,
        source=f"{STATS} (the rule itself is not published); overflow: {COURBARIAUX}; max: Gysel et al., Ristretto, "
               "arXiv 1604.03168 (2016)")
    max_overflow_rate: float = spec_field(
        "Overflow rule: largest tolerated fraction of results that saturate.", 1e-4, minimum=0, maximum=1,
        source=f"{COURBARIAUX}: 0.01 %")
    percentile: float = spec_field(
        "Percentile rule: fraction of the histogram that must fall inside the representable range.",
        0.9999, positive=True, maximum=1, source="estimate: the same 0.01 % budget as the overflow rule")
    update_interval: int = spec_field(
        "Training steps between point updates (the histogram accumulates over them).", 1, positive=True,
        source="estimate: Courbariaux et al. update every 100 batches over long runs; the digits runs "
               "have a few hundred steps, so every step")
    initial_point: int = spec_field(
        "Fraction bits of every tensor before any statistics exist (inside the word: 0 .. bits - 1).", 2,
        minimum=0, source="estimate: a mid-word point; the first step's statistics correct it (re-run)")
    min_fraction_bits: int = spec_field(
        "Smallest point position the settings register holds (negative: the point right of the word).",
        -16, source="estimate: a 6-bit signed point register")
    max_fraction_bits: int = spec_field(
        "Largest point position the settings register holds (beyond bits: the point left of the word).",
        40, source="estimate: wide enough for 8-bit gradients of order 2^-30")
    rerun_threshold: int = spec_field(
        "Re-run a layer when the new point differs from the one it ran with by more than this many "
        "bits (-1: never re-run).", 2, minimum=-1, source="estimate: re-running a layer whose point moved is an option here; Fujitsu publishes no such "
        "threshold")

    @property
    def bits(self) -> int:
        return DATA_TYPE_BITS[self.data_type]

    @property
    def is_fixed_point(self) -> bool:
        return self.data_type in FIXED_POINT_TYPES

    @property
    def ops_per_lane(self) -> int:
        return max(1, self.lane_bits // self.bits)

    @property
    def lanes(self) -> int:
        """MAC units of the chip at this data type (operations per cycle)."""
        return self.processing_units * self.elements_per_unit * self.simd_lanes * self.ops_per_lane

    def __post_init__(self) -> None:
        problems = []
        if self.bits > self.lane_bits:
            problems.append(f"dlu.data_type {self.data_type} ({self.bits} bits) is wider than "
                            f"dlu.lane_bits {self.lane_bits}")
        if self.is_fixed_point and self.initial_point > self.bits - 1:
            problems.append(f"dlu.initial_point {self.initial_point} is outside the {self.bits}-bit word "
                            f"(expected 0 .. {self.bits - 1})")
        if self.min_fraction_bits > self.max_fraction_bits:
            problems.append(f"dlu.min_fraction_bits {self.min_fraction_bits} > dlu.max_fraction_bits "
                            f"{self.max_fraction_bits}")
        elif not self.min_fraction_bits <= self.initial_point <= self.max_fraction_bits:
            problems.append(f"dlu.initial_point {self.initial_point} is outside the point register range "
                            f"{self.min_fraction_bits} .. {self.max_fraction_bits}")
        if self.is_fixed_point and self.accumulator_bits < 2 * self.bits:
            problems.append(f"dlu.accumulator_bits {self.accumulator_bits} is narrower than a product of two "
                            f"{self.bits}-bit operands ({2 * self.bits} bits)")
        if problems:
            raise ValueError("; ".join(problems))
