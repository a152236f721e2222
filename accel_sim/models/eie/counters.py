"""What an EIE layer counts: time and stalls, and every action its energy comes from."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class EIECounters(Counters):
    compute_cycles: int              # cycles: the input vectors one after the other, each from its start to its last PE
    spill_stall_cycles: int          # cycles: loading the spilled entries / pointers from DRAM before the first vector
    broadcasts: int                  # non-zero activations broadcast by the LNZD root (entries per FIFO), all vectors
    fifo_full_stall_cycles: int      # cycles the root held a ready broadcast because some FIFO was full
    pe_starved_cycles: int           # PE-cycles idle before the PE's last slice of a vector ended
    pe_tail_cycles: int              # PE-cycles idle after the PE's last slice, until the vector ended
    lnzd_activation_reads: int       # activations (words) read by the LNZD leaves, zeros included
    fifo_pushes: int                 # activation-FIFO writes (entries), all PEs
    fifo_pops: int                   # activation-FIFO reads (entries), all PEs
    pointer_reads: int               # column-pointer reads (pointers), both banks, all PEs
    spmat_reads: int                 # sparse-matrix SRAM reads (lines of spmat_sram_width bits), all PEs
    pe_entries: tuple[int, ...]      # entries (non-zeros + padding) each PE processed: a codebook lookup and a MAC each
    padding_entries: int             # entries that are padding (v = 0), all PEs
    accumulator_bypasses: int        # entries whose accumulator was written by the PE's previous entry (no read)
    pe_busy_cycles: tuple[int, ...]  # cycles each PE spent on column slices (entries and empty slices)
    empty_slice_cycles: int          # cycles spent on empty column slices (empty_column_costs_cycle), all PEs
    ideal_cycles: int                # cycles: per vector, ceil(non-zero weights in its broadcast columns / PEs)
    dram_spill_bytes: int            # bytes read from DRAM before the layer (dram_spill)
