"""DRAM rate of one wave's round of reads: the sustained ``dram_bandwidth``, or for a kernel whose loads in flight
are one stage per CTA (``KernelTile.dram_rate: in_flight``) the rate a read stream reaches with that many bytes in
flight per SM (``dram_read_rates``, a measured table; Little's law below its first point).

A wave's round reads the stage's DRAM bytes of all its CTAs at once; those bytes are what the wave keeps in flight,
spread over the GPU's ``sms``. A full wave of a kernel with enough resident work per SM keeps the table's top rate; a
partial last wave keeps fewer bytes in flight and reads at the lower rate its bytes reach. Shared by the fast path and
the reference, so both charge the same rate to the same round.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.tensor_core.plan.problem import BITS_PER_BYTE
from accel_sim.models.tensor_core.spec import KernelTile, TensorCoreSpec


def reads_in_flight(spec: TensorCoreSpec, tile: KernelTile) -> bool:
    """Whether the kernel's DRAM rounds move at the rate of their bytes in flight (else at ``dram_bandwidth``)."""
    return tile.dram_rate == "in_flight" and bool(spec.dram_read_rates)


def round_rate(spec: TensorCoreSpec, tile: KernelTile, bits: np.ndarray | int) -> np.ndarray | float:
    """Bytes per cycle of a wave's DRAM round of ``bits`` (elementwise for an array of rounds)."""
    if not reads_in_flight(spec, tile):
        return spec.dram_bandwidth
    per_sm = np.asarray(bits, dtype=np.float64) / BITS_PER_BYTE / spec.sms
    points = spec.dram_read_rates
    rate = np.interp(per_sm, [0.0, *(float(p.in_flight) for p in points)], [0.0, *(p.bandwidth for p in points)])
    # a round of no bytes takes no time at any rate; keep it positive so a transfer's time stays defined
    rate = np.where(per_sm > 0, np.minimum(rate, spec.dram_bandwidth), spec.dram_bandwidth)
    return rate if np.ndim(bits) else float(rate)
