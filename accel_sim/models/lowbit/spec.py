"""The ``lowbit:`` section of an arch config (family: lowbit).

An array of ``pes`` processing elements; each owns one output column (filter) per pass and
streams every input row through the datapath of the layer's precision:

- ``binary`` (XNOR-Net / BNN): operands bit-packed into ``word_bits`` words; one word pair per
  cycle through an XNOR row and a popcount tree (``log2(word_bits)`` adder levels); inputs are
  binarized and packed by a ``binarizer_width``-value-per-cycle unit before the layer starts;
  each output is scaled once by the filter's alpha (one FP32 multiply);
- ``ternary`` (TWN) and ``log2`` (signed powers of two): ``add_lanes`` adders take the non-zero
  weights only (zero skipping: a zero weight costs no cycle), adding or subtracting the
  activation (ternary) or its shifted copy (log2: a barrel shift then an add);
- ``int8`` / ``int4`` / ``int16``: ``mult_lanes`` integer multipliers of ``multiplier_bits``;
- ``fp32``: ``fp_lanes`` FP32 multiply-adds, for the full-precision first and last layers.

A layer's ``precision:`` (workload) picks the datapath; ``lowbit.precision`` is the default.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field

XNOR_NET = "Rastegari et al., XNOR-Net, ECCV 2016"
BMXNET = "Yang et al., BMXNet, ACM MM 2017 (64-bit words: xnor_64)"
LOWBIT_PRECISIONS = ("fp32", "int16", "int8", "int4", "ternary", "binary", "log2")


@dataclass(frozen=True)
class LowbitSpec:
    """Binary / ternary / low-bit PE array with per-layer precision."""

    pes: int = spec_field("Processing elements; each computes one output column (filter) per pass.", 16,
                          positive=True, source="estimate: a small array, a parameter")
    word_bits: int = spec_field(
        "Packing width: binary operands per word, XNOR gates and popcount-tree inputs of a PE.", 64,
        choices=(8, 16, 32, 64), source=f"{BMXNET}; {XNOR_NET}: 64 binary operations per word")
    add_lanes: int = spec_field(
        "Adders per PE for ternary (add / subtract) and log2 (shift then add) weights; zero weights skipped.",
        16, positive=True, source="estimate: a parameter; 16 adders of accumulator_bits")
    mult_lanes: int = spec_field("Integer multipliers per PE (int-k layers).", 8, positive=True,
                                 source="estimate: a parameter")
    multiplier_bits: int = spec_field("Width of each integer multiplier; int-k layers need k <= this.", 8,
                                      positive=True, source="estimate: 8-bit multipliers (int8 inference)")
    fp_lanes: int = spec_field("FP32 multiply-add units per PE (full-precision layers).", 1, positive=True,
                               source="estimate: one FMA per PE; XNOR-Net / BMXNet keep only the first and "
                                      "last layers in full precision")
    accumulator_bits: int = spec_field("Width of each PE's accumulator (wraps in two's complement).", 32,
                                       positive=True, source="common practice: 32-bit accumulators (TPU v1)")
    activation_bits: int = spec_field(
        "Bits of the integer activations of ternary and log2 layers.", 8, minimum=2, maximum=16,
        source="estimate: TWN / log-domain networks run with 8-bit activations here")
    log2_bits: int = spec_field("Code width of log2 weights (sign, exponents, a zero code).", 4, minimum=2,
                                maximum=8, source="Miyashita et al. 2016: 3-4 bit log codes")
    binarizer_width: int = spec_field(
        "Activation values the binarizer takes per cycle (sign bit extracted, packed into words).", 64,
        positive=True, source="estimate: one word of signs per cycle")
    activation_scale: bool = spec_field(
        "Binary layers also scale each output by its input patch's mean |x| (XNOR-Net's beta): the "
        "binarizer sums |x| while it packs the signs, and a second multiply stage scales the output.",
        False, source=f"{XNOR_NET}; false: BNN / BMXNet keep only the weight scale")
    precision: str = spec_field("Datapath of layers that set no precision.", "binary",
                                choices=LOWBIT_PRECISIONS, source=XNOR_NET)
    weight_buffer: int = spec_field(
        "Weight buffer capacity (SRAM energy): each pass's packed weights are loaded into it from DRAM; when a "
        "layer's input is streamed in row tiles, weights that all fit stay resident (loaded once).",
        64 * 1024, unit="size", positive=True, source="estimate: a parameter")
    input_buffer: int = spec_field(
        "Input buffer capacity: a layer's stored (packed) input is loaded once when it fits, else either every "
        "pass reloads its groups' input from DRAM or the input streams once in row tiles of this size, "
        "whichever moves fewer bytes; also sets the SRAM energy.", 64 * 1024, unit="size",
        positive=True, source="estimate: a parameter; row tiles: Umuroglu et al., FINN, FPGA 2017 (the "
                              "sliding window unit streams each input pixel once)")
    output_buffer: int = spec_field(
        "Output buffer capacity (SRAM energy): a pass's outputs (packed signs for binary) collect here and "
        "drain to DRAM while the next pass runs.", 64 * 1024, unit="size", positive=True,
        source="estimate: a parameter")
    dram_bandwidth: float = spec_field(
        "DRAM bandwidth shared by weight and input loads and output writes.", 16.0, unit="bandwidth",
        positive=True, source="estimate: 16 GB/s at the 1 GHz clock, about one 32-bit LPDDR4-4266 channel "
                              "(4266 MT/s x 4 B = 17 GB/s, JEDEC JESD209-4B)")

    def __post_init__(self) -> None:
        problems = []
        if self.accumulator_bits < 2 * self.multiplier_bits:
            problems.append(f"lowbit.accumulator_bits {self.accumulator_bits} is narrower than a product of two "
                            f"{self.multiplier_bits}-bit operands")
        if problems:
            raise ValueError("; ".join(problems))
