"""The ``eyeriss:`` section of an arch config (family: eyeriss), Eyeriss v1 (Chen et al., JSSC 2017).

The clock is the arch's ``clock`` (the core clock); the DRAM link has its own clock and width here.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field

JSSC = "Chen et al., Eyeriss, IEEE JSSC 52(1) 2017"


@dataclass(frozen=True)
class EyerissSpec:
    """A row-stationary PE array with per-PE scratch pads, a global buffer and run-length-coded DRAM traffic."""

    pe_rows: int = spec_field("PE array rows (a PE set's height, the filter rows R, must fit).", 12, positive=True,
                              source=f"{JSSC}, Sec. III-A (12 x 14 PEs)")
    pe_cols: int = spec_field("PE array columns (one X-bus of the global input network per row).", 14,
                              positive=True, source=f"{JSSC}, Sec. III-A")
    ifmap_spad_entries: int = spec_field("Ifmap scratch pad of a PE (words): holds q sliding windows of S values.",
                                         12, positive=True, source=f"{JSSC}, Sec. V-C (12 x 16 b registers)")
    filter_spad_entries: int = spec_field("Filter scratch pad of a PE (words): holds p x q filter rows of S weights.",
                                          224, positive=True, source=f"{JSSC}, Sec. V-C (224 x 16 b SRAM)")
    psum_spad_entries: int = spec_field("Psum scratch pad of a PE (words): one psum for each of p filters.", 24,
                                        positive=True, source=f"{JSSC}, Sec. V-C (24 x 16 b registers)")
    glb_size: int = spec_field("Global-buffer space for ifmaps and psums (25 banks of 4 kB).", 100 * 1000,
                               unit="size", positive=True, source=f"{JSSC}, Sec. V-A (100 kB of the 108 kB GLB)")
    glb_banks: int = spec_field("Banks of the ifmap / psum global buffer.", 25, positive=True,
                                source=f"{JSSC}, Sec. V-A")
    filter_glb_size: int = spec_field("Global-buffer space for filters (two banks: one in use, one preloaded).",
                                      8 * 1000, unit="size", positive=True, source=f"{JSSC}, Sec. V-A (8 kB)")
    filter_gin_words: int = spec_field("Words the filter global input network delivers per cycle (64-bit bus).", 4,
                                       positive=True, source=f"{JSSC}, Sec. V-B-1 (64 b = 4 x 16 b)")
    ifmap_gin_words: int = spec_field("Words the ifmap global input network delivers per cycle (16-bit bus).", 1,
                                      positive=True, source=f"{JSSC}, Sec. V-B-1 (16 b)")
    link_clock: float = spec_field("Clock of the DRAM link (its own clock domain).", 60e6, unit="frequency",
                                   positive=True, source=f"{JSSC}, Table V caption (link clock 60 MHz)")
    link_bits: int = spec_field("Width of the DRAM data bus (bidirectional).", 64, positive=True,
                                source=f"{JSSC}, Sec. III-A (64-b bidirectional bus)")
    zero_gating: bool = spec_field("Zero ifmap values gate the multiplier and the filter-spad read (energy, not "
                                   "cycles).", True, source=f"{JSSC}, Sec. V-C")
    run_length_coding: bool = spec_field("Ifmaps and ofmaps cross DRAM run-length coded.", True,
                                         source=f"{JSSC}, Sec. IV-B")
    rlc_run_bits: int = spec_field("Bits of a run of zeros (maximum run 2^bits - 1).", 5, positive=True,
                                   source=f"{JSSC}, Sec. IV-B, Fig. 8")
    rlc_level_bits: int = spec_field("Bits of the value that ends a run.", 16, positive=True,
                                     source=f"{JSSC}, Sec. IV-B, Fig. 8")
    rlc_pairs_per_word: int = spec_field("(run, level) pairs packed in one link word.", 3, positive=True,
                                         source=f"{JSSC}, Sec. IV-B, Fig. 8 (3 pairs per 64-b word)")
    raw_input_layers: tuple[str, ...] = spec_field(
        "Layers whose ifmaps come from the host uncoded (the network's input image).", (),
        source=f"{JSSC}, Sec. IV-B (all fmaps but the first layer's input are stored RLC-coded)")

    def __post_init__(self) -> None:
        rlc_bits = self.rlc_pairs_per_word * (self.rlc_run_bits + self.rlc_level_bits)
        if rlc_bits > self.link_bits:
            raise ValueError(f"rlc_pairs_per_word: {self.rlc_pairs_per_word} pairs of {rlc_bits // self.rlc_pairs_per_word}"
                             f" bits exceed a {self.link_bits}-bit link word")

    @property
    def pes(self) -> int:
        return self.pe_rows * self.pe_cols

    @property
    def max_run(self) -> int:
        return 2 ** self.rlc_run_bits - 1
