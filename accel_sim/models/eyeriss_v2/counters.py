"""What an Eyeriss v2 layer counts: time by cause, MACs issued, and every access energy comes from."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class EyerissV2Counters(Counters):
    cycles: int                 # every round: its slowest PE's weight wait + compute
    compute_cycles: int         # sum over rounds of the busiest PE's compute (cycles)
    rounds: int                 # rounds of work units (one per PE at a time)
    work_units: int             # PE work units (g, m-block, c-block, filter row, image, ofmap row, f-block)
    pe_busy_cycles: int         # sum over work units of their compute cycles
    macs_issued: int            # MACs with a non-zero iact and a non-zero weight (the rest are skipped)
    simd_idle_slots: int        # second-MAC slots of a cycle left empty (odd column): clock-gated
    iact_spad_reads: int        # non-zero iacts fetched from the iact data SPad (12-b pairs)
    weight_spad_reads: int      # 24-b weight words read (one per MAC cycle)
    weight_addr_reads: int      # weight address SPad reads (one per non-zero iact)
    iact_spad_writes: int       # non-zero iacts received by PEs (12-b pairs)
    weight_spad_writes: int     # 24-b weight words received by PEs (reloads only)
    weight_load_words: int      # 24-b words the weight routers send (a router multicasts to its PE row)
    psum_out_words: int         # psums leaving PEs (20 b)
    glb_iact_writes: int        # non-zero iacts written into the GLB from DRAM (12-b pairs)
    glb_iact_reads: int         # non-zero iacts read from the GLB (once per round for all PEs sharing them)
    glb_psum_writes: int        # psums parked in the GLB between channel blocks (20 b)
    glb_psum_reads: int         # psums read back for the next channel block (20 b)
    dram_iact_read_bits: int    # CSC-coded iacts from DRAM
    dram_weight_read_bits: int  # CSC-coded weights from DRAM, once per round for every router needing them
    dram_ofmap_write_bits: int  # 8-b ofmaps to DRAM (they skip the GLB)
