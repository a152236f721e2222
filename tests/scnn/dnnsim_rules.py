"""DNNsim's SCNN cycle rules, written out product by product as a test oracle.

This is a third, deliberately naive statement of the rules in tests/data/dnnsim_scnn/README.md
(isakedo/DNNsim 4748a60, core/src/SCNN.cpp, as read from its source): one Python loop per
product, no vectorisation, nothing shared with accel_sim's SCNN plan, fast path or reference.
It is only for small layers (hundreds of thousands of products at most).

Rules, in the README's numbering (plane axes: ``x`` = axis 2 = rows, ``y`` = axis 3 = columns):
1. the input is zero-padded by ``pad`` and each side rounded up to a multiple of 8; an 8 x 8 grid of
   equal blocks of the padded plane, one per PE;
2. ``Kc = floor(1024 / (ceil(Wout / 8) * ceil(Hout / 8)))``, the last group partial;
3. per (group, input channel) a PE runs each stride phase in turn: activations of the phase
   ``(x % stride, y % stride)`` in row-major order, in chunks of I; for each chunk the weights of
   phase ``((r + pad) % stride, (s + pad) % stride)`` (r, s, then k fastest) in chunks of F; a step
   costs ``max(1, largest bank load)``; a product's output is ``((x - r) / stride, (y - s) / stride)``
   with C's integer division (truncation toward zero), and only in-plane products are counted and
   banked;
4. bank = ``(16 (k_2 ^ w_1 ^ h_1) + 8 w_0 + 4 h_0 + k mod 4) mod banks``;
5. all PEs meet after every (group, channel): the channel costs its slowest PE;
6. after each group, ``largest halo region x filters in the group`` cycles, regions from the axis
   lengths ``(R - 1 - pad, block, pad)``.
"""
from __future__ import annotations

import math

import numpy as np

PES, I, F, ACC, BANKS = 8, 4, 4, 1024, 32  # noqa: E741 - the paper's I (activations per vector)


def _trunc_div(a: int, b: int) -> int:
    """C's integer division: the quotient truncated toward zero."""
    q = abs(a) // b
    return q if a >= 0 else -q


def _bank(k: int, w: int, h: int) -> int:
    bit = lambda v, i: (v >> i) & 1  # noqa: E731
    return (16 * (bit(k, 2) ^ bit(w, 1) ^ bit(h, 1)) + 8 * bit(w, 0) + 4 * bit(h, 0) + k % 4) % BANKS


def dnnsim_cycles(weights: np.ndarray, inputs: np.ndarray, stride: int, pad: int) -> tuple[int, int]:
    """(cycles, mults) of one layer: weights (K, C, R, S), inputs (1, C, H, W); non-zero = work."""
    k_total, channels, kr, ks = weights.shape
    act = np.pad(inputs[0] != 0, ((0, 0), (pad, pad), (pad, pad)))
    rows, cols = act.shape[1:]
    out_w, out_h = (rows - kr) // stride + 1, (cols - ks) // stride + 1
    kc = ACC // (math.ceil(out_w / PES) * math.ceil(out_h / PES))
    rows8, cols8 = math.ceil(rows / PES) * PES, math.ceil(cols / PES) * PES
    tw, th = rows8 // PES, cols8 // PES
    regions = [a * b for i, a in enumerate((kr - 1 - pad, tw, pad)) for j, b in enumerate((ks - 1 - pad, th, pad))
               if (i, j) != (1, 1)]
    halo = max(regions)
    phases = [(px, py) for px in range(stride) for py in range(stride)]
    cycles = mults = 0
    for k0 in range(0, k_total, kc):
        ks_group = range(k0, min(k0 + kc, k_total))
        for c in range(channels):
            wgt = {p: [] for p in phases}
            for r in range(kr):
                for s in range(ks):
                    for k in ks_group:
                        if weights[k, c, r, s]:
                            wgt[((r + pad) % stride, (s + pad) % stride)].append((k, r, s))
            slowest = 0
            for pex in range(PES):
                for pey in range(PES):
                    acts = {p: [] for p in phases}
                    for x in range(pex * tw, min(pex * tw + tw, rows)):
                        for y in range(pey * th, min(pey * th + th, cols)):
                            if act[c, x, y]:
                                acts[(x % stride, y % stride)].append((x, y))
                    pe_cycles = 0
                    for p in phases:
                        a_list, w_list = acts[p], wgt[p]
                        for i in range(0, len(a_list), I):
                            for f in range(0, len(w_list), F):
                                load = [0] * BANKS
                                for x, y in a_list[i:i + I]:
                                    for k, r, s in w_list[f:f + F]:
                                        w, h = _trunc_div(x - r, stride), _trunc_div(y - s, stride)
                                        if 0 <= w < out_w and 0 <= h < out_h:
                                            load[_bank(k, w, h)] += 1
                                            mults += 1
                                pe_cycles += max(1, max(load))
                    slowest = max(slowest, pe_cycles)
            cycles += slowest
        cycles += halo * len(ks_group)
    return cycles, mults
