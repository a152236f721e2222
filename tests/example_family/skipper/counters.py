"""What the skipper counts: time and every action energy comes from."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class SkipperCounters(Counters):
    cycles: int              # first fetch to last MAC
    activation_reads: int    # non-zero activations fetched (words)
    weight_reads: int        # weights read by the lanes (words)
    macs_issued: int         # multiplications done
