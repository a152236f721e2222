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

Both are additive in the coordinate: the bank of product (weight (k, r, s), activation at
accumulator position (qy, qx)) is ``bank_of(k, -r, -s) + bank_of(0, qy, qx) mod A``, which is
what makes the fast path's per-step conflict count a rotation of masks
(:mod:`accel_sim.scnn.fast.crossbar`). The reference calls :func:`bank_of` on each product's
output coordinate directly.
"""
from __future__ import annotations

import numpy as np

from accel_sim.scnn.plan.tiling import Tiling
from accel_sim.scnn.spec import SCNNSpec


def bank_of(spec: SCNNSpec, tiling: Tiling, k, y, x):
    """Bank of partial sum (k, y, x) in a PE's accumulator (coordinates local to its region;
    integers or integer arrays, negative offsets allowed)."""
    coefficient = tiling.acc_h * tiling.acc_w if spec.bank_mapping == "linear" else \
        spec.accumulator_banks // spec.mult_f
    return np.mod(coefficient * k + tiling.acc_w * y + x, spec.accumulator_banks)
