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
(:mod:`accel_sim.models.scnn.fast.crossbar`). The reference calls :func:`bank_of` on each product's
output coordinate directly.

- ``dnnsim_xor`` (DNNsim's own hash, not additive): ``bank = (16 (k_2 ^ y_1 ^ x_1) + 8 y_0 + 4 x_0
  + k mod 4) mod A`` on the layer's filter index ``k`` and the GLOBAL output coordinates ``(y, x)``
  (DNNsim's axis 2 and axis 3; bit ``i`` of ``v`` is ``v_i``): :func:`xor_bank`. Both paths then
  list every product's bank.
"""
from __future__ import annotations

import numpy as np

from accel_sim.models.scnn.plan.tiling import Tiling
from accel_sim.models.scnn.spec import SCNNSpec


def bank_of(spec: SCNNSpec, tiling: Tiling, k, y, x):
    """Bank of partial sum (k, y, x) in a PE's accumulator (coordinates local to its region;
    integers or integer arrays, negative offsets allowed)."""
    coefficient = tiling.acc_h * tiling.acc_w if spec.bank_mapping == "linear" else \
        spec.accumulator_banks // spec.mult_f
    banks = spec.accumulator_banks
    address = coefficient * k + tiling.acc_w * y + x
    if banks & (banks - 1) == 0 and isinstance(address, np.ndarray) and address.dtype.kind == "i":
        return address & (banks - 1)   # mod a power of two (floor mod, negatives too): one AND, no division
    return np.mod(address, banks)


def xor_bank(spec: SCNNSpec, k, y, x):
    """DNNsim's bank of partial sum (filter k of the layer, global output row y, column x)."""
    return xor_hash(k, y, x, spec.accumulator_banks)


def xor_hash(k, y, x, banks):
    """:func:`xor_bank` on the bank count alone (plain integer arithmetic: integers, integer arrays, or
    compiled loops): ``(16 (k_2 ^ y_1 ^ x_1) + 8 y_0 + 4 x_0 + k mod 4) mod banks``."""
    return (16 * (((k >> 2) ^ (y >> 1) ^ (x >> 1)) & 1) + 8 * (y & 1) + 4 * (x & 1) + k % 4) % banks
