"""The ``pe_array:`` section of an arch config (family: pe_array).

One output-stationary PE array whose level of sparsity support is a single switch
(``sparsity_support``), so a user sees the effect of each level alone. See
:mod:`accel_sim.models.pe_array` for the behaviour each field controls.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field

SUPPORT_LEVELS = ("none", "memory", "gating", "skipping", "reassignment")
WEIGHT_FORMATS = ("csr", "bitmap", "nm")
REASSIGN_POLICIES = ("in_order", "longest_first")
LADDER = ("design choice: the storage / gating / skipping distinctions of Wu et al., Sparseloop, MICRO 2022, "
          "made one switch; gating as in Moons et al., ENVISION, ISSCC 2017")
POLICY = "estimate: no published policy for row reassignment; two simple ones offered"
A100_NM = "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 2:4 fine-grained structured sparsity"
ESTIMATE = "estimate: a small generic design point (not a specific chip)"


@dataclass(frozen=True)
class PEArraySpec:
    """Generic PE array with a selectable level of sparsity support."""

    rows: int = spec_field(
        "PE rows. Each row accumulates one filter (output channel) of the tile; all PEs of a row "
        "share the row's weight stream and its index decoder.", 16, positive=True, source=ESTIMATE)
    cols: int = spec_field(
        "PE columns. Each column holds one output pixel of the tile (output stationary).", 16,
        positive=True, source=ESTIMATE)
    vector_width: int = spec_field(
        "Weights (reduction positions) a PE row consumes per cycle: each PE has this many multipliers "
        "feeding an adder tree into its accumulator.", 4, positive=True, source=ESTIMATE)
    sparsity_support: str = spec_field(
        "Level of weight-sparsity support: 'none' (weights decompressed in DRAM, zeros travel and are "
        "computed), 'memory' (compressed in DRAM and SRAM, decompressed before the array, zeros "
        "computed), 'gating' (as memory, and a MAC with a zero operand is gated: energy saved, cycles "
        "not), 'skipping' (each row's decoder feeds only its non-zero weights; rows finish on their own "
        "and the tile waits for the slowest), 'reassignment' (as skipping, and idle rows take decoded "
        "weights of busier rows in their window through a crossbar).", "none", choices=SUPPORT_LEVELS,
        source=LADDER)
    weight_format: str = spec_field(
        "Compressed weight format of every level but 'none' (per filter, along the reduction): 'csr' "
        "(values + column indices), 'bitmap' (one presence bit per position) or 'nm' (N:M slots with "
        "position metadata; a layer whose weights are not N:M is an error, never pruned silently).",
        "csr", choices=WEIGHT_FORMATS, source="accel_sim.foundations.compress formats CSR, Bitmap, NOfM")
    nm_n: int = spec_field("N of the N:M format (kept slots per group).", 2, positive=True,
                           source=A100_NM)
    nm_m: int = spec_field("M of the N:M format (group length).", 4, positive=True,
                           source=A100_NM)
    csr_entries_per_cycle: int = spec_field(
        "CSR decoder throughput: (value, index) entries one row's decoder delivers per cycle (one chunk "
        "per cycle).", 4, positive=True, source=ESTIMATE)
    bitmap_bits_per_cycle: int = spec_field(
        "Bitmap decoder throughput: presence bits one row's decoder scans per cycle (a priority encoder "
        "chain over one chunk per cycle, empty chunks included).", 16, positive=True, source=ESTIMATE)
    nm_groups_per_cycle: int = spec_field(
        "N:M decoder throughput: M-groups one row's decoder expands per cycle (N slots each).", 2,
        positive=True, source=ESTIMATE)
    decoder_latency: int = spec_field(
        "Pipeline latency of a row's index decoder, paid once per tile by the decoding levels "
        "(skipping, reassignment).", 2, unit="cycles", minimum=0, source=ESTIMATE)
    reassign_window: int = spec_field(
        "Rows that share work under 'reassignment': the rows are split into windows of this many "
        "consecutive rows joined by a crossbar; an idle row takes decoded weights only inside its window.",
        4, positive=True, source=ESTIMATE)
    reassign_policy: str = spec_field(
        "Which busy rows the spare MAC slots of a window serve first each cycle: 'in_order' (lowest row "
        "first) or 'longest_first' (most remaining work in the current chunk first).", "longest_first",
        choices=REASSIGN_POLICIES, source=POLICY)
    weight_sram_size: int = spec_field("Weight buffer (holds one filter tile's weights).", 512 * 1024,
                                       unit="size", positive=True, source=ESTIMATE)
    input_sram_size: int = spec_field("Input activation buffer.", 1024 * 1024, unit="size", positive=True,
                                      source=ESTIMATE)
    output_sram_size: int = spec_field("Output buffer.", 256 * 1024, unit="size", positive=True,
                                       source=ESTIMATE)
    accumulator_bits: int = spec_field("Width of each PE's accumulator and of a partial sum.", 32,
                                       positive=True, source="common practice for 8-bit MACs (TPU v1)")

    def __post_init__(self) -> None:
        if self.nm_n > self.nm_m:
            raise ValueError(f"pe_array.nm_n {self.nm_n} must be <= pe_array.nm_m {self.nm_m}")
        if self.sparsity_support in ("memory", "gating") and self.decompressed_positions_per_cycle < self.vector_width:
            raise ValueError(
                f"pe_array.sparsity_support '{self.sparsity_support}' decompresses weights in front of the array, which "
                f"needs {self.vector_width} positions per cycle per row (vector_width), but the {self.weight_format} "
                f"decoder delivers only {self.decompressed_positions_per_cycle}: raise its throughput (a slower "
                "decompressor is not modelled)")
        if self.reassign_window > self.rows or self.rows % self.reassign_window:
            raise ValueError(f"pe_array.reassign_window {self.reassign_window} must divide pe_array.rows "
                             f"{self.rows}")

    @property
    def decompressed_positions_per_cycle(self) -> int:
        """Dense positions one row's decoder is sure to expand per cycle (CSR: at least one per entry)."""
        return {"csr": self.csr_entries_per_cycle, "bitmap": self.bitmap_bits_per_cycle,
                "nm": self.nm_groups_per_cycle * self.nm_m}[self.weight_format]

    @property
    def decodes(self) -> bool:
        """The array's rows read compressed weights through an index decoder (skipping levels)."""
        return self.sparsity_support in ("skipping", "reassignment")

    @property
    def compressed(self) -> bool:
        """Weights are stored and moved compressed (every level but 'none')."""
        return self.sparsity_support != "none"
