"""The PE's operand vectors, fast path: F-vectors of weights (the weight FIFO) and I-vectors of activations.

Per PE, per output-channel group, the loop nest is (paper, PT-IS-CP-sparse, Fig. 5)::

    for c in channels: for phase: for each I-vector (I activations, raster order of the tile):
        for each F-vector (F weights of (c, group), linearised over R x S then K, Fig. 7):
            one step: F x I products, scattered to A accumulator banks

A *segment* is one (channel, phase) of a channel (stride > 1 splits it into phase classes,
:mod:`accel_sim.models.scnn.plan.tiling`). Weights are cut into F-vectors per (segment, group),
activations into I-vectors per (pass, segment, PE); each carries its bank term (the
additive part of :func:`~accel_sim.models.scnn.plan.bank_mapping.bank_of` it contributes) for
:mod:`.crossbar`. Activations carry their *pass* (temporal tile x channel chunks + channel
chunk): a chunk's channels are computed in their own pass.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.compiled import compiled_loop
from accel_sim.models.scnn.fast.crossbar import EMPTY_SHIFT, activation_banks, weight_multiplicity
from accel_sim.models.scnn.plan.bank_mapping import bank_of
from accel_sim.models.scnn.plan.nonzeros import coordinates, sorted_pieces, stable_order, weight_nonzeros
from accel_sim.models.scnn.plan.tiling import ConvView, Tiling
from accel_sim.models.scnn.spec import SCNNSpec


@dataclass(frozen=True)
class WeightVectors:
    """F-vectors of one conv group, sorted by segment (channel, phase), then group, then order."""

    segment: np.ndarray   # (n,) c * phases + phase
    group: np.ndarray     # (n,) output-channel group
    count: np.ndarray     # (n,) weights in the vector (1..F)
    shift: np.ndarray | None     # (n, F) uint64 rotation of the activation banks per weight (EMPTY_SHIFT unused)
    seg_start: np.ndarray  # (segments + 1,) first vector of each segment
    multiplicity: np.ndarray | None  # (n,) the most weights of the vector sharing one bank term
    # (segments, output-channel groups) sums, shared by every image of the batch:
    weights_per_block: np.ndarray        # weights
    vectors_per_block: np.ndarray        # F-vectors
    multiplicity_per_block: np.ndarray | None   # F-vector multiplicities
    # (shift and the multiplicities: None under ``per_weight="term"``, read only by the crossbar's step costs)
    # per weight, in FIFO order (for the product-level count of :mod:`.products`; None when not asked for;
    # ``per_weight="term"``: only ``term``, int32, for the FIFO loops on an additive bank mapping):
    k: np.ndarray | None       # filter of the conv group
    tap_y: np.ndarray | None   # output rows the weight moves a product up (:func:`weight_taps`)
    tap_x: np.ndarray | None
    vector: np.ndarray | None  # F-vector holding the weight
    term: np.ndarray | None    # additive bank term of the weight (bank_of(k mod Kc, -tap_y, -tap_x))


def _per_block(segment: np.ndarray, group: np.ndarray, values: np.ndarray | None, n_seg: int,
               groups: int) -> np.ndarray:
    """``(segments, groups)`` sums of a per-vector quantity (``None``: count the vectors)."""
    sums = np.bincount(segment * groups + group, weights=values, minlength=n_seg * groups)
    return sums.astype(np.int64).reshape(n_seg, groups)


@dataclass(frozen=True)
class ActivationVectors:
    """I-vectors of one image and conv group, sorted by (pass, segment, PE, raster order)."""

    tile: np.ndarray      # (n,) pass: temporal tile x channel chunks + channel chunk
    segment: np.ndarray   # (n,)
    pe: np.ndarray        # (n,)
    count: np.ndarray     # (n,) activations in the vector (1..I)
    banks: np.ndarray     # bank terms, in the form of crossbar.activation_banks


def phase_counts(view: ConvView) -> tuple[int, int]:
    return min(view.stride_h, view.r), min(view.stride_w, view.s)


def _vector_ids(keys: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Cut runs of equal ``keys`` into vectors of ``width``: (vector id, slot) per element."""
    n = keys.size
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    lengths = np.diff(np.append(starts, n))
    place = np.arange(n) - np.repeat(starts, lengths)   # position in the run
    vectors = -(-lengths // width)
    first = np.cumsum(vectors) - vectors   # the run's first vector
    return np.repeat(first, lengths) + place // width, place % width


def weight_taps(spec: SCNNSpec, r: np.ndarray, stride: int, pad: int) -> np.ndarray:
    """Output offset of kernel rows ``r``: a product's output row is ``(y + pad) // stride - tap``
    (floor). 'aligned': ``r // stride``. 'dnnsim': the weight meets activations of padded phase
    ``(r + pad) % stride``, one row further back when that phase is below ``r % stride``."""
    if spec.stride_phases != "dnnsim":
        return r // stride
    return r // stride + ((r % stride + pad) % stride < r % stride)


def weight_vectors(spec: SCNNSpec, view: ConvView, tiling: Tiling, weight_mask: np.ndarray | None,
                   nonzeros: tuple[np.ndarray, ...] | None = None, per_weight: bool | str = True) -> WeightVectors:
    """``weight_mask`` (Kg, Cg, R, S): the weights the design feeds to the multipliers; ``nonzeros``
    its true entries (k, c, r, s) when the plan already found them (``plan.nonzeros.weight_nonzeros``;
    then ``weight_mask`` is not read). ``per_weight``: also the per-weight fields (``k`` ... ``term``,
    read only by the product-level counts); else they are None; ``"term"``: only ``term`` (int32), all
    the compiled FIFO loops read on an additive bank mapping (:func:`.scatter_fifo.terms_only`), and no
    ``shift`` or multiplicities (the crossbar's step costs, which those loops replace). The weights are cut into vectors
    a piece of whole segments at a time (:func:`~accel_sim.models.scnn.plan.nonzeros.sorted_pieces`: a
    vector never crosses a segment)."""
    nph_h, nph_w = phase_counts(view)
    n_segments = view.channels * nph_h * nph_w
    k, c, r, s = (v.astype(np.int64, copy=False) for v in (weight_nonzeros(weight_mask) if nonzeros is None
                                                           else nonzeros))
    # one phase class per channel (stride 1, or a 1-wide kernel): the segment is the channel
    segment = c if nph_h * nph_w == 1 else c * (nph_h * nph_w) + (r % view.stride_h) * nph_w + (s % view.stride_w)
    if spec.weight_order == "rs_then_k":
        order = stable_order(segment, n_segments)  # weight_nonzeros: (k, r, s) order inside a channel
    else:
        # = np.lexsort((k, s, r, k // kc, segment)) on one key: (segment, group, r, s, k) is unique per weight,
        # and a stable sort of one int64 key is a radix sort (lexsort's five passes: most of this function's time)
        key = (((segment * tiling.out_groups + k // tiling.kc) * view.r + r) * view.s + s) * view.out_channels + k
        order = stable_order(key, n_segments * tiling.out_groups * view.r * view.s * view.out_channels)
    k, r, s, segment = k[order], r[order], s[order], segment[order]
    pieces, offset = [], 0
    for at in sorted_pieces(segment):
        pieces.append(_vector_piece(spec, view, tiling, k[at], segment[at], r[at], s[at], offset, per_weight))
        offset += pieces[-1][0].size
    del k, c, r, s, segment
    v_segment, v_group, count, shift, multiplicity, *per = (
        None if pieces[0][i] is None else np.concatenate([p[i] for p in pieces]) for i in range(10))
    del pieces
    seg_start = np.searchsorted(v_segment, np.arange(n_segments + 1))

    def per_block(values: np.ndarray | None) -> np.ndarray:
        return _per_block(v_segment, v_group, values, n_segments, tiling.out_groups)

    return WeightVectors(v_segment, v_group, count, shift, seg_start, multiplicity, per_block(count), per_block(None),
                         None if multiplicity is None else per_block(multiplicity), *per)


def _vector_piece(spec: SCNNSpec, view: ConvView, tiling: Tiling, k: np.ndarray, segment: np.ndarray,
                  r: np.ndarray, s: np.ndarray, offset: int, per_weight: bool | str) -> tuple:
    """F-vectors of whole segments' weights in FIFO order (sorted by segment): per vector (segment,
    group, count, shift, multiplicity), then per weight (k, tap_y, tap_x, vector + ``offset``, term)
    or five Nones (``per_weight="term"``: no shift and multiplicity (None: the FIFO loops read the
    terms), four Nones and the int32 terms)."""
    a = spec.accumulator_banks
    group, k_in_group = np.divmod(k, tiling.kc)
    vec, slot = _vector_ids(segment * tiling.out_groups + group, spec.mult_f)
    n = int(vec[-1]) + 1 if vec.size else 0
    tap_y = weight_taps(spec, r, view.stride_h, view.pad_top)
    tap_x = weight_taps(spec, s, view.stride_w, view.pad_left)
    term = bank_of(spec, tiling, k_in_group, -tap_y, -tap_x)
    first = np.flatnonzero(slot == 0)   # a vector's first weight (vector ids ascend)
    v_segment, v_group = segment[first].astype(np.int64), group[first].astype(np.int64)
    count = np.diff(np.append(first, vec.size))
    if per_weight == "term":
        return (v_segment, v_group, count, None, None) + (None,) * 4 + (term.astype(np.int32),)
    shift = np.full((n, spec.mult_f), EMPTY_SHIFT, dtype=np.uint64)
    shift[vec, slot] = ((a - term) % a).astype(np.uint64)
    per = (k, tap_y, tap_x, vec + offset, term) if per_weight else (None,) * 5
    return (v_segment, v_group, count, shift, weight_multiplicity(shift)) + per


def activation_elements(spec: SCNNSpec, view: ConvView, tiling: Tiling, input_mask: np.ndarray,
                        positions: bool = False):
    """Non-zeros (of ``input_mask`` (Cg, H, W)) that meet some weight, with pass (temporal tile,
    channel chunk), PE, segment and bank term, in the PE's processing order (``positions``: also
    their output-grid row and column ``(y + pad) // stride``).

    The order is (temporal tile, channel chunk, channel, phase, PE, raster order). Everything but
    the channel depends on the position (y, x) alone: the positions that meet a weight are listed
    once, sorted by (temporal tile, phase, PE) in raster order, and each temporal tile's columns of
    the mask are read in that order, so the non-zeros come out sorted (channel-major) with no sort."""
    nph_h, nph_w = phase_counts(view)
    channels, h, w = input_mask.shape
    y, x = np.divmod(np.arange(h * w), w)
    if spec.stride_phases == "dnnsim":   # phase (y + pad) % stride meets weight phase (r + pad) % stride: r % stride == y % stride
        py, px = y % view.stride_h, x % view.stride_w
    else:
        py, px = (y + view.pad_top) % view.stride_h, (x + view.pad_left) % view.stride_w
    kept = np.flatnonzero((py < nph_h) & (px < nph_w))
    y, x, phase = y[kept], x[kept], py[kept] * nph_w + px[kept]
    row_tile, col_tile = tiling.rows.tile_of(y), tiling.cols.tile_of(x)
    spatial = (row_tile // spec.pe_rows) * tiling.temporal_cols + col_tile // spec.pe_cols
    pe = (row_tile % spec.pe_rows) * spec.pe_cols + col_tile % spec.pe_cols
    qy, qx = (y + view.pad_top) // view.stride_h, (x + view.pad_left) // view.stride_w
    term = bank_of(spec, tiling, 0, qy - tiling.rows.acc_lo[row_tile], qx - tiling.cols.acc_lo[col_tile])
    n_phases, temporal_tiles = nph_h * nph_w, tiling.passes // tiling.channel_chunks
    order = stable_order((spatial * n_phases + phase) * spec.pes + pe, temporal_tiles * n_phases * spec.pes)
    order = np.arange(kept.size) if isinstance(order, slice) else order
    bounds = np.searchsorted(spatial[order], np.arange(temporal_tiles + 1))
    chunk = tiling.chunk_of(np.arange(channels))
    flat = input_mask.reshape(channels, h * w)
    kernel = _compiled_elements()
    if kernel is not None:   # the same lists, written once (no per-tile pieces to concatenate)
        found = kernel(flat, kept[order], bounds, chunk.astype(np.int64), tiling.channel_chunks, n_phases,
                       phase[order].astype(np.int64), pe[order].astype(np.int64), term[order].astype(np.int64),
                       qy[order].astype(np.int64), qx[order].astype(np.int64), positions)
        return found if positions else found[:4]
    parts = []
    for t in range(temporal_tiles):
        at = order[bounds[t]:bounds[t + 1]]
        c, j = coordinates(flat[:, kept[at]])
        at = at[j]
        found = (t * tiling.channel_chunks + chunk[c], c * n_phases + phase[at], pe[at], term[at])
        parts.append(found + (qy[at], qx[at]) if positions else found)
    return tuple(np.concatenate([part[i] for part in parts]).astype(np.int64, copy=False)
                 for i in range(6 if positions else 4))


def element_lists(flat, position, bounds, chunk, channel_chunks, n_phases, phase, pe, term, qy, qx, positions):
    """:func:`activation_elements`' lists, the loop numba compiles: ``flat`` (channels, positions) the mask; the
    positions that meet a weight in processing order (``position``, with their ``phase``, ``pe``, bank ``term`` and
    output-grid ``qy``, ``qx``), temporal tile ``t``'s ``bounds[t]:bounds[t + 1]``; per tile, channel by channel,
    the non-zeros in that order (counted first, then written: the lists are made once)."""
    channels = flat.shape[0]
    total = 0
    for c in range(channels):
        for i in range(position.size):
            if flat[c, position[i]]:
                total += 1
    tile_of, segment, pe_of, term_of = (np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64),
                                        np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64))
    listed = total if positions else 0
    qy_of, qx_of = np.empty(listed, dtype=np.int64), np.empty(listed, dtype=np.int64)
    n = 0
    for t in range(bounds.size - 1):
        for c in range(channels):
            tile, base = t * channel_chunks + chunk[c], c * n_phases
            for i in range(bounds[t], bounds[t + 1]):
                if flat[c, position[i]]:
                    tile_of[n], segment[n], pe_of[n], term_of[n] = tile, base + phase[i], pe[i], term[i]
                    if positions:
                        qy_of[n], qx_of[n] = qy[i], qx[i]
                    n += 1
    return tile_of, segment, pe_of, term_of, qy_of, qx_of   # (qy, qx empty unless ``positions``)


def _compiled_elements():
    """:func:`element_lists` compiled by numba (:func:`compiled_loop`), or None when numba is not installed (then
    numpy lists each temporal tile's non-zeros and concatenates them)."""
    return compiled_loop(element_lists)


def activation_vectors(spec: SCNNSpec, view: ConvView, tiling: Tiling, elements) -> ActivationVectors:
    """I-vectors from :func:`activation_elements`."""
    tile, segment, pe, term = elements
    nph_h, nph_w = phase_counts(view)
    vec, slot = _vector_ids((tile * view.channels * nph_h * nph_w + segment) * spec.pes + pe, spec.mult_i)
    n = int(vec[-1]) + 1 if vec.size else 0
    first = np.searchsorted(vec, np.arange(n))
    return ActivationVectors(tile[first], segment[first], pe[first], np.bincount(vec, minlength=n).astype(np.int64),
                             activation_banks(vec, slot, term, n, spec.accumulator_banks, spec.mult_i))
