"""The ``eie:`` section of an arch config (family: eie).

Every default is a fact of the EIE paper (Han et al., ISCA 2016, arXiv 1602.01528, its hardware
implementation section); facts the paper leaves uncertain (?) are parameters whose source says so.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field

EIE = "Han et al., EIE, ISCA 2016 (arXiv 1602.01528), hardware implementation section"
OVERFLOW_POLICIES = ("error", "dram_spill", "grow_on_chip")
POINTER_BANKS = 2  # EIE paper: column pointers in two single-ported banks (even / odd j), p_j and p_j+1 in one cycle


@dataclass(frozen=True)
class EIESpec:
    """EIE: sparse matrix x sparse vector engine (Han et al., ISCA 2016)."""

    n_pes: int = spec_field("Processing elements; row i of W (output i) lives on PE i mod n_pes.", 64,
                            positive=True, source=f"{EIE}: 64 PEs")
    fifo_depth: int = spec_field(
        "Entries of each PE's activation FIFO; the broadcast stalls while any FIFO is full.", 8,
        positive=True, source="Han et al., EIE, ISCA 2016 (arXiv 1602.01528), FIFO-depth study: depth swept 1..256, 8 chosen")
    spmat_sram_width: int = spec_field(
        "Width of one sparse-matrix SRAM read in bits (a multiple of the entry width).", 64,
        positive=True, source=f"{EIE}: 64 bits = 8 entries per read")
    weight_code_bits: int = spec_field("Bits of an entry's value v: an index into the shared-weight codebook.", 4,
                                       positive=True, source=f"{EIE}: 4-bit index into a 16-entry codebook")
    index_bits: int = spec_field("Bits of an entry's relative row index z (longest zero run 2**bits - 1).", 4,
                                 positive=True, source=f"{EIE}: 4-bit zero count, padding entry above 15")
    pointer_bits: int = spec_field("Bits of a column pointer p_j.", 16, positive=True, source=f"{EIE}: 16-bit p_j")
    arithmetic_bits: int = spec_field(
        "Fixed-point width of decoded weights, activations and the multiplier.", 16, positive=True,
        source=f"{EIE}: codebook lookup to 16-bit fixed point")
    accumulator_bits: int = spec_field(
        "Width of the row accumulators b_x (energy only; the functional model accumulates exactly).", 16,
        positive=True, source=f"{EIE}: 16-bit fixed-point arithmetic (accumulator width not stated: taken equal)")
    spmat_sram_size: int = spec_field("Sparse-matrix SRAM per PE.", 128 * 1024, unit="size", positive=True,
                                      source=f"{EIE}: 128 KB per PE")
    pointer_sram_size: int = spec_field(
        "Pointer SRAM per PE (two single-ported banks, even / odd columns, so p_j and p_j+1 read in one cycle).",
        32 * 1024, unit="size", positive=True, source=f"{EIE}: 32 KB per PE")
    activation_sram_size: int = spec_field(
        "Activation SRAM per PE, for vectors longer than the activation register files.", 2 * 1024,
        unit="size", positive=True, source=f"{EIE}: 2 KB per PE (?: how longer vectors are batched through it is not detailed)")
    activation_registers: int = spec_field(
        "Entries of each source / destination activation register file per PE (16-bit each).", 64,
        positive=True, source=f"{EIE}: 64 x 16-bit per PE")
    lnzd_fanin: int = spec_field("Inputs of one leading-non-zero-detection node (the quadtree's arity).", 4,
                                 minimum=2, source=f"{EIE}: groups of 4 PEs, a quadtree of LNZD nodes")
    lnzd_cycles_per_level: int = spec_field(
        "Pipeline latency of one LNZD quadtree level; the first broadcast leaves the root after "
        "levels x this many cycles, later ones follow one per cycle.", 1, minimum=0,
        source=f"estimate: the paper gives no LNZD latency ({EIE}); one register per tree level assumed")
    empty_column_costs_cycle: bool = spec_field(
        "Whether a broadcast activation whose column slice is empty on a PE (p_j = p_j+1) still costs that "
        "PE one cycle.", False, source=f"estimate: not stated in {EIE}; a parameter (?)")
    sram_overflow: str = spec_field(
        "What happens when a PE's slice does not fit its sparse-matrix / pointer SRAM or pointer width: "
        "'error' refuses the layer; 'dram_spill' loads the excess bytes from DRAM before the layer "
        "(counted, and a stall at dram.bandwidth in 'user' mode) and widens pointers as needed; "
        "'grow_on_chip' keeps the layer on chip, as the paper runs all its benchmark layers: the pointers "
        "are widened and the SRAMs sized to what the layer needs (a deviation from the configured sizes, "
        "per layer, in the plan: pointer_bits, pointer_sram_size, spmat_sram_size).",
        "error", choices=OVERFLOW_POLICIES,
        source="design choice: a clear error unless the config asks for a DRAM spill; 'grow_on_chip' runs the layers "
               "on chip as Han et al., EIE, ISCA 2016 (arXiv 1602.01528) runs all nine of its benchmark layers")

    def __post_init__(self) -> None:
        if self.spmat_sram_width % self.entry_bits:
            raise ValueError(f"eie.spmat_sram_width {self.spmat_sram_width} bits is not a multiple of the "
                             f"entry width {self.entry_bits} bits (weight_code_bits {self.weight_code_bits} "
                             f"+ index_bits {self.index_bits})")

    @property
    def entry_bits(self) -> int:
        """Bits of one stored entry (v, z)."""
        return self.weight_code_bits + self.index_bits

    @property
    def entries_per_read(self) -> int:
        """Entries delivered by one sparse-matrix SRAM read."""
        return self.spmat_sram_width // self.entry_bits

    @property
    def codebook_size(self) -> int:
        return 1 << self.weight_code_bits

    @property
    def max_run(self) -> int:
        return (1 << self.index_bits) - 1

    @property
    def lnzd_levels(self) -> int:
        """Levels of the LNZD tree over ``n_pes`` leaves (at least one node)."""
        levels, reach = 1, self.lnzd_fanin
        while reach < self.n_pes:
            levels += 1
            reach *= self.lnzd_fanin
        return levels

    @property
    def lnzd_latency(self) -> int:
        """Cycle of the first broadcast."""
        return self.lnzd_levels * self.lnzd_cycles_per_level
