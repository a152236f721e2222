"""The row-stationary mapping of one convolution onto the PE array (pure).

Following Chen et al., JSSC 2017, Sec. IV-A:

- a logical **PE set** runs one 2-D convolution: ``R`` PEs high (filter rows) and ``E`` wide (ofmap
  rows). A set wider than the array is cut into ``ceil(E / cols)`` **segments** stacked vertically
  (AlexNet CONV2: 5 x 27 -> 5 x 14 over 5 x 13); a set that still does not fit is **strip-mined**
  to ``e`` ofmap rows at a time (CONV1: 11 x 55 -> 11 x 7);
- the array holds ``rows // (R x segments)`` copies vertically and, for sets at most half the width,
  ``cols // e`` side by side; the copies run ``t`` filters and ``r`` channels at once;
- a PE interleaves ``p`` filters and ``q`` channels: ``q x S`` ifmap values, ``p x q x S`` weights and
  ``p`` psums must fit its scratch pads;
- a **processing pass** runs ``q x r`` channels of ``p x t`` filters on ``n`` images; the global
  buffer keeps the ifmaps of one pass and the psums of ``m`` filters across passes.

The paper's own choice of these parameters is an energy optimisation (its ref. [32]) whose details
are not published. This mapper's rules, fixed before any comparison: ``q`` as large as the ifmap and
filter spads allow; ``p`` the largest power of two the psum and filter spads allow (Table III uses
p = 16 in every AlexNet layer); copies to filters first (``t``), the rest to channels (``r``); the
strip widths that keep the most PEs busy, the one whose best ``n`` and ``m`` need the fewest DRAM
words (then the narrower); ``p`` halved until a pass fits the global buffer; ``n`` and ``m`` the pair that fits the global buffer with the
fewest DRAM words (filters are re-read for every image block and strip, ifmaps for every block of
``m`` filters), ties to the larger ``m`` then the larger ``n``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import Layer
from accel_sim.foundations.workload.loop_nest import LoopNest
from accel_sim.models.eyeriss.spec import EyerissSpec

BITS_PER_BYTE = 8


@dataclass(frozen=True)
class RsMapping:
    """A layer's row-stationary mapping (Table II of the paper)."""

    e: int             # ofmap rows per strip (the width of a strip-mined set)
    segments: int      # pieces of one set, stacked vertically
    sets: int          # set copies the array holds at once (vertical x side by side)
    p: int             # filters interleaved in a PE
    q: int             # channels interleaved in a PE
    r: int             # set copies on different channels
    t: int             # set copies on different filters
    n: int             # images per pass
    m: int             # filters whose psums the global buffer keeps across passes
    set_height: int    # R
    set_width: int     # E

    @property
    def active_pes(self) -> int:
        return self.set_height * self.e * self.r * self.t


def window_rows(shape: LoopNest, rows: int) -> int:
    """Ifmap rows ``rows`` ofmap rows read."""
    return (rows - 1) * shape.stride + shape.filter_rows


def strip_rows(shape: LoopNest, e: int) -> tuple[int, ...]:
    """Ofmap rows of every strip."""
    return tuple(min(e, shape.out_rows - start) for start in range(0, shape.out_rows, e))


def _largest_power_of_two(limit: int) -> int:
    return 1 << (limit.bit_length() - 1)


def _interleaving(spec: EyerissSpec, shape: LoopNest, layer: Layer) -> tuple[int, int]:
    """(p, q): channels and filters a PE interleaves."""
    s = shape.filter_cols
    q = min(spec.ifmap_spad_entries // s, spec.filter_spad_entries // s, shape.channels)
    if q < 1:
        raise InputError.single(layer.name, "kernel_w", f"filter rows of S={s} weights do not fit the "
                                f"{spec.ifmap_spad_entries}-word ifmap or {spec.filter_spad_entries}-word filter "
                                "scratch pad (eyeriss.ifmap_spad_entries, eyeriss.filter_spad_entries)")
    p = min(_largest_power_of_two(min(spec.psum_spad_entries, spec.filter_spad_entries // (q * s))), shape.filters)
    return p, q


def _placement(spec: EyerissSpec, shape: LoopNest, e: int, p: int, q: int) -> tuple[int, int, int, int]:
    """(segments, sets, r, t) of sets ``e`` ofmap rows wide."""
    segments = math.ceil(e / spec.pe_cols)
    side_by_side = spec.pe_cols // e if segments == 1 else 1
    sets = spec.pe_rows // (shape.filter_rows * segments) * side_by_side
    t = min(sets, math.ceil(shape.filters / p))
    r = min(sets // t, math.ceil(shape.channels / q))
    return segments, sets, r, t


def _strip_widths(spec: EyerissSpec, shape: LoopNest, p: int, q: int) -> list[int]:
    """The strip widths that keep the most PEs busy (the whole set when it fits)."""
    height = shape.filter_rows
    if height * math.ceil(shape.out_rows / spec.pe_cols) <= spec.pe_rows:
        return [shape.out_rows]
    busy = {}
    for e in range(1, min(shape.out_rows, spec.pe_cols) + 1):
        _, _, r, t = _placement(spec, shape, e, p, q)
        busy[e] = height * e * r * t
    return [e for e, pes in busy.items() if pes == max(busy.values())]


def _glb_bytes(spec: EyerissSpec, shape: LoopNest, word_bits: int, e: int, qr: int, n: int, m: int) -> int:
    ifmaps = n * qr * window_rows(shape, e) * shape.width
    psums = n * m * e * shape.out_cols
    return math.ceil((ifmaps + psums) * word_bits / BITS_PER_BYTE)


def _buffering(spec: EyerissSpec, shape: LoopNest, word_bits: int, e: int, p: int, q: int, r: int,
               t: int) -> tuple[int, int, int] | None:
    """(DRAM words, n, m): images per pass and filters kept in the global buffer, the fewest DRAM words
    that fit (None: nothing fits)."""
    strips = strip_rows(shape, e)
    filter_words = shape.filters * shape.channels * shape.filter_rows * shape.filter_cols
    ifmap_words = shape.images * shape.channels * shape.width * sum(window_rows(shape, rows) for rows in strips)
    block = p * t
    best = None
    for n in range(1, shape.images + 1):
        for blocks in range(1, math.ceil(shape.filters / block) + 1):
            m = min(blocks * block, shape.filters)
            if _glb_bytes(spec, shape, word_bits, e, q * r, n, m) > spec.glb_size:
                continue
            words = (filter_words * math.ceil(shape.images / n) * len(strips)
                     + ifmap_words * math.ceil(shape.filters / m))
            key = (words, -m, -n)
            best = key if best is None or key < best else best
    return None if best is None else (best[0], -best[2], -best[1])


def rs_mapping(spec: EyerissSpec, shape: LoopNest, word_bits: int, layer: Layer) -> RsMapping:
    if shape.filter_rows > spec.pe_rows:
        raise InputError.single(layer.name, "kernel_h", f"filter rows R={shape.filter_rows} exceed the "
                                f"{spec.pe_rows} PE rows of the array (eyeriss.pe_rows); Eyeriss maps no "
                                "PE set taller than the array")
    p, q = _interleaving(spec, shape, layer)
    best = None
    for e in _strip_widths(spec, shape, p, q):
        p_e = p
        while True:      # fewer filters a PE (halving p) until one pass's ifmaps and psums fit the global buffer
            segments, sets, r, t = _placement(spec, shape, e, p_e, q)
            found = _buffering(spec, shape, word_bits, e, p_e, q, r, t)
            if found is not None or p_e == 1:
                break
            p_e //= 2
        if found is not None and (best is None or (found[0], e) < best[0]):
            best = ((found[0], e), RsMapping(e, segments, sets, p_e, q, r, t, found[1], found[2], shape.filter_rows,
                                             shape.out_rows))
    if best is None:
        need = _glb_bytes(spec, shape, word_bits, 1, q, 1, 1)
        raise InputError.single(layer.name, "eyeriss.glb_size", f"{spec.glb_size} B cannot hold one processing "
                                f"pass of this layer (ifmaps and psums need at least {need} B)")
    return best[1]
