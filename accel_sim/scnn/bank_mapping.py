"""Accumulator bank mapping (``scnn.bank_mapping``): which of the A banks holds a partial sum.

Every PE lays out its accumulator buffer for the layer's largest accumulator region,
``Kc x acc_h x acc_w`` partial sums, addressed ``(k, y, x)`` with ``k`` the output channel
inside the group and ``(y, x)`` the output position relative to the PE's region. The paper
does not give its hash (brief: "bank mapping hash (?)"); two additive choices:

- ``linear``: ``bank = (k * acc_h * acc_w + y * acc_w + x) mod A``, plain word interleaving of
  the buffer's linear address;
- ``channel_spread``: ``bank = (k * (A / F) + y * acc_w + x) mod A``, which puts consecutive
  output channels A / F banks apart so the F weights of one weight vector (often of different
  channels) start in different quarters of the banks.

Both are additive in the output coordinate, which is what makes the fast path's per-step
conflict count a rotation of masks (:mod:`accel_sim.scnn.cartesian`). The per-cycle reference
calls :func:`bank_of` on each product's coordinate directly.
"""
from __future__ import annotations

from accel_sim.scnn.spec import SCNNSpec
from accel_sim.scnn.tiling import Tiling


def channel_coefficient(spec: SCNNSpec, tiling: Tiling) -> int:
    if spec.bank_mapping == "linear":
        return tiling.acc_h * tiling.acc_w
    return spec.accumulator_banks // spec.mult_f


def bank_of(spec: SCNNSpec, tiling: Tiling, k: int, y: int, x: int) -> int:
    """Bank of partial sum (k, y, x) in a PE's accumulator (coordinates local to its region)."""
    return (channel_coefficient(spec, tiling) * k + tiling.acc_w * y + x) % spec.accumulator_banks
