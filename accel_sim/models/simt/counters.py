"""What a SIMT kernel counts: its time, each limiter's share, and the work and traffic it moved.

Per CTA, four lower bounds on its time alone on an SM: its slowest warp's chain of issue and
exposed latency, its issue cycles on the SM's schedulers, its L1 / shared-memory bytes, its L2-port
sectors (its other traffic plus its L1 misses). The ``*_cycles`` sums add each CTA's bound over CTAs; ``cta_cycles`` adds the CTAs'
times (the largest bound each); ``sm_served_cycles`` is when the busiest SM's schedulers, L1 and
L2 port had served every demand of its CTAs (resident CTAs share them).
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class SimtCounters(Counters):
    candidate: int           # index into the plan's candidates of the one that ran (the fastest)
    cycles: int              # launch to the last CTA's end, the L2 and DRAM traffic and the atomics done
    sm_cycles: int           # launch to the last SM's end (its CTAs done and their demands served)
    sm_served_cycles: int    # the latest SM's schedulers / L1 / L2 port done serving its CTAs
    l2_cycles: int           # the kernel's L2 sectors at the L2 bandwidth
    dram_cycles: int         # the kernel's DRAM bytes at the DRAM bandwidth
    atomic_cycles: int       # the latest L2 slice's atomic unit done with its requests (each CTA's join when it starts)
    ctas: int
    warps: int
    ctas_per_sm: int         # occupancy
    cta_cycles: int          # sum over CTAs of their time
    latency_cycles: int      # sum over CTAs of their slowest warp's chain
    issue_cycles: int        # sum over CTAs of their issue bound
    l1_cycles: int           # sum over CTAs of their L1 / shared-memory bound
    l2_port_cycles: int      # sum over CTAs of their L2-port bound
    issue_slots: int         # warp-instruction issue cycles, all warps
    l1_bytes: int
    l2_sectors: int
    dram_read_bytes: int
    dram_write_bytes: int
    fmas: int                # CUDA-core FMAs (lane operations)
    tensor_macs: int         # tensor-core MACs executed
    atomics: int             # atomic sector transactions at L2
    l1_hits: int             # read-only load sectors the SM's L1 served (fetched by an earlier CTA on the SM)
    l1_misses: int           # read-only load sectors the L1 sent to L2 (inside l2_sectors)
    instruction_cache_hits: int       # code sectors the SMs' instruction caches served (not in l2_sectors)
    l2_misses: int = 0       # listed read sectors (L1 misses, GEMM tiles) the L2 missed when the footprint overflows it
