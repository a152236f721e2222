"""What an Eyeriss layer counts: time by cause, MACs issued and gated, and every access energy comes from."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class EyerissCounters(Counters):
    cycles: int                 # the layer: ifmap loads, passes and ofmap dumps one after the other
    processing_cycles: int      # the passes' ramp-up (filters into the spads) and compute: the paper's processing latency
    network_wait_cycles: int    # passes' cycles beyond their MACs: the 16-bit ifmap GIN could not keep up
    filter_wait_cycles: int     # passes waiting for their filters to arrive from DRAM
    ifmap_load_cycles: int      # array idle while ifmaps come from DRAM (the chip does not overlap them)
    ofmap_dump_cycles: int      # array idle while ofmaps go to DRAM
    passes: int                 # processing passes
    macs_issued: int            # MACs done (dense minus gated)
    macs_gated: int             # MACs whose ifmap value is zero: multiplier and filter-spad read gated
    dram_ifmap_read_bits: int   # ifmaps from DRAM (coded), once per block of m filters
    dram_filter_read_bits: int  # filters from DRAM (raw), once per pass
    dram_ofmap_write_bits: int  # ofmaps to DRAM (coded)
    glb_ifmap_writes: int       # ifmap words written into the global buffer (decoded)
    glb_ifmap_reads: int        # ifmap words read from the global buffer onto the ifmap network
    glb_filter_words: int       # filter words through the global buffer (each written once, read once)
    glb_psum_reads: int         # psums read back for the next block of channels (and for the dump)
    glb_psum_writes: int        # psums written by every pass
    ifmap_spad_writes: int      # ifmap words received by PEs (multicast counted per PE)
    filter_spad_writes: int     # weights received by PEs
    local_link_transfers: int   # psums moved to the PE above over the local network
