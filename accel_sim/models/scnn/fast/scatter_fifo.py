"""FIFO scatter network, fast path: busy cycles when each accumulator bank has an input FIFO.

``scatter: fifo`` / ``fifo_unbounded`` (:mod:`accel_sim.models.scnn.spec`). A PE's steps run in the loop
nest's order (per output-channel group: segment, I-vector, F-vector). Step ``t`` sends ``n_b(t)``
products to bank ``b``; a bank adds one product per cycle; ``Q_b`` products wait at bank ``b``
when a step issues. With FIFOs of ``D`` products the step takes

    d(t)  = max(1, max_b (Q_b + n_b(t) - D))       (its last product enters its bank's FIFO)
    Q_b  <- max(0, Q_b + n_b(t) - d(t))            (the bank drained one product per cycle)

and the barrier unit (group, or (group, input channel)) ends ``max_b Q_b`` cycles after its last
step (the banks drain). ``D = 0`` is ``scatter: serialise``. Unbounded FIFOs: ``d(t) = 1`` and
``Q`` is Lindley's recursion, in closed form over a run of ``T`` steps with cumulative sums
``P(t) = sum_{u < t} (n_b(u) - 1)``: ``Q_b(T) = max(Q_b(0) + P(T), P(T) - min_{1 <= t <= T} P(t))``.
With numba installed, :func:`kernel_busy` runs the recursion in the compiled loops of
:mod:`.scatter_fifo_kernel` for every bank mapping and coordinate rule (no product list; whole networks
in about ``serialise``'s CPU time, plus ~0.5 s to load numba: benchmarks/bench_scnn_scatter.py; the
coordinate rules: benchmarks/bench_scnn_ablation_rows.py). Without numba the numpy path: a
finite depth runs the recursion step by step, vectorised across every (pass, PE, group) sequence of a
chunk, with step bank loads from :func:`.products.segment_loads` (every product's bank).
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.scnn.fast.products import (SegmentLoads, border_split, needs_coordinates, product_busy,
                                                 segment_loads)
from accel_sim.models.scnn.fast.bank_codes import class_codes
from accel_sim.models.scnn.fast.scatter_fifo_kernel import (TRUNCATE_X, TRUNCATE_Y, WORDS, XOR, compiled, no_codes,
                                                            packed_fits, product_rule, xor_classes)
from accel_sim.models.scnn.fast.shape_pieces import shape_piece
from accel_sim.models.scnn.fast.scatter_fifo_rows import (additive_rows, edge_combinations, edge_vectors, i_combinations,
                                                          xor_rows)
from accel_sim.models.scnn.fast.vectors import WeightVectors, _vector_ids, activation_elements, phase_counts
from accel_sim.models.scnn.plan import Plan
from accel_sim.models.scnn.plan.keys import activation_key, tiling_key
from accel_sim.models.scnn.plan.nonzeros import run_bounds

FIFO_PRODUCTS = 1 << 20   # products of one chunk of steps (memory: a step's A bank loads are kept)


def _runs(part: SegmentLoads) -> tuple[np.ndarray, np.ndarray]:
    """Start and length of each run of I-vectors of one (pass, PE), and group column bounds."""
    key = part.tile * (int(part.pe.max()) + 1) + part.pe
    starts = np.flatnonzero(np.concatenate(([True], key[1:] != key[:-1])))
    g_start = np.flatnonzero(np.concatenate(([True], part.group[1:] != part.group[:-1])))
    return starts, g_start


def lindley_runs(x: np.ndarray, starts: np.ndarray, q0: np.ndarray) -> np.ndarray:
    """Queues after runs of unit-service steps: ``x`` (steps, A) arrivals minus one per step, runs
    starting at ``starts`` (ascending, first 0), ``q0`` (runs, A) queues before each run. ``x`` is
    overwritten (its running sums)."""
    p = np.cumsum(x, axis=0, out=x)
    ends = np.concatenate((starts[1:], [x.shape[0]])) - 1
    base = np.where(starts[:, None] > 0, p[np.maximum(starts - 1, 0)], 0)
    total = p[ends] - base
    lowest = np.minimum.reduceat(p, starts, axis=0) - base
    return np.maximum(q0 + total, total - lowest)


def _unbounded(part: SegmentLoads, queue: np.ndarray, busy: np.ndarray) -> None:
    starts, g_start = _runs(part)
    g_end = np.concatenate((g_start[1:], [part.group.size]))
    runs = np.diff(np.concatenate((starts, [part.tile.size])))
    tile, pe = part.tile[starts], part.pe[starts]
    for lo, hi in zip(g_start.tolist(), g_end.tolist()):
        g = int(part.group[lo])
        width = hi - lo
        x = np.subtract(part.load[:, lo:hi, :], 1, dtype=np.int32, casting="unsafe").reshape(-1, part.load.shape[2])
        queue[tile, pe, g] = lindley_runs(x, starts * width, queue[tile, pe, g])
        busy[tile, pe, g, part.segment] += runs * width


KERNELS = compiled   # () -> the loops of .scatter_fifo_kernel (None without numba: the numpy path below runs)


def terms_only(plan: Plan) -> bool:
    """Whether :func:`fifo_busy` reads only the weights' bank terms per weight (the compiled loops on an
    additive bank mapping), so :func:`~.vectors.weight_vectors` need build no other per-weight field."""
    return plan.spec.scatter != "serialise" and not needs_coordinates(plan.spec) and KERNELS() is not None


STEP_BLOCK_ENTRIES = 1 << 21   # (step, sequence, bank) loads gathered at once by the finite-depth recursion


def _bounded(part: SegmentLoads, depth: int, queue: np.ndarray, busy: np.ndarray) -> None:
    """The recursion of the module docstring in the equivalent form of each bank's drain time
    ``F_b = T + Q_b`` (``T``: the cycle the step issues): ``F_b <- max(F_b, T) + n_b(t)``,
    ``T <- max(T + 1, max_b F_b - D)``; per step one pass over the live sequences, longest first."""
    starts, g_start = _runs(part)
    g_end = np.concatenate((g_start[1:], [part.group.size]))
    runs = np.diff(np.concatenate((starts, [part.tile.size])))
    # one sequence per (run, group): its k-th step is I-vector start + k // width, F-vector lo + k % width
    r_idx, g_idx = np.meshgrid(np.arange(starts.size), np.arange(g_start.size), indexing="ij")
    width = (g_end - g_start)[g_idx.ravel()]
    length = runs[r_idx.ravel()] * width
    order = np.argsort(-length, kind="stable")
    r_idx, g_idx, width, length = r_idx.ravel()[order], g_idx.ravel()[order], width[order], length[order]
    first_i, first_f = starts[r_idx], g_start[g_idx]
    tile, pe, group = part.tile[first_i], part.pe[first_i], part.group[first_f]
    drain = queue[tile, pe, group].astype(np.int64)          # F_b, with T = 0 at the chunk's start
    issue = np.zeros(order.size, dtype=np.int64)             # T
    live = np.searchsorted(-length, -np.arange(int(length[0])), side="left")   # sequences longer than k
    k = 0
    while k < length[0]:
        block = max(1, STEP_BLOCK_ENTRIES // (int(live[k]) * part.load.shape[2]))
        ks = np.arange(k, min(k + block, int(length[0])))
        n = int(live[k])
        rows = first_i[None, :n] + ks[:, None] // width[None, :n]
        cols = first_f[None, :n] + ks[:, None] % width[None, :n]
        valid = ks[:, None] < length[None, :n]
        loads = part.load[np.where(valid, rows, 0), np.where(valid, cols, 0)]   # (block, n, A)
        for j, kk in enumerate(ks.tolist()):
            m = int(live[kk])
            f, t = drain[:m], issue[:m]
            np.maximum(f, t[:, None], out=f)
            f += loads[j, :m]
            np.maximum(t + 1, f.max(axis=1) - depth, out=t)
        k = int(ks[-1]) + 1
    queue[tile, pe, group] = np.maximum(drain - issue[:, None], 0)
    busy[tile, pe, group, part.segment] += issue


def phase_order(plan: Plan, n_seg: int) -> np.ndarray | None:
    """The order a PE runs the segments in, when it is not ascending: per channel, stride phases by the
    padded activation phase ((y + pad) % stride; 'dnnsim' numbers its segments by y % stride). With
    FIFOs the order of steps matters, not only their sum."""
    view = plan.view
    if plan.spec.stride_phases != "dnnsim":
        return None
    nph_h, nph_w = phase_counts(view)
    seg = np.arange(n_seg)
    py, px = (seg // nph_w) % nph_h, seg % nph_w
    return np.lexsort(((px + view.pad_left) % view.stride_w, (py + view.pad_top) % view.stride_h,
                       seg // (nph_h * nph_w)))


def _operands(plan: Plan, image: int, conv_group: int, weights: WeightVectors, elements: tuple | None):
    """Activation elements (pass, segment, PE, bank term), their coordinates ``(n, 2)`` (qy, qx), the weights'
    ``(n, 3)`` (tap_y, tap_x, layer filter k) and :func:`.scatter_fifo_kernel.product_rule`; the coordinates
    are empty when the bank mapping is additive (:func:`~.products.needs_coordinates`)."""
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    mask = plan.input_mask[image, conv_group]
    if not needs_coordinates(spec):
        if elements is None:
            elements = activation_elements(spec, view, tiling, mask)
        empty = np.zeros((0, 2), dtype=np.int64)
        return elements, empty, empty, product_rule(False, False, False, False, False, 0, 0, 0)
    tile, seg, pe, term, qy, qx = plan.memo.get(plan.layer, ("activation positions", activation_key(spec),
                                                             tiling_key(tiling), plan.traits.skip_activations, image,
                                                             conv_group),
                                                lambda: activation_elements(spec, view, tiling, mask, positions=True))
    w_pos = np.stack((weights.tap_y, weights.tap_x, weights.k + conv_group * view.out_channels), axis=1)
    truncate = spec.stride_phases == "dnnsim"
    rule = product_rule(True, spec.bank_mapping == "dnnsim_xor", spec.out_of_plane == "slot_only",
                        truncate and view.pad_top % view.stride_h != 0, truncate and view.pad_left % view.stride_w != 0,
                        tiling.acc_w, view.out_h, view.out_w)
    return (tile, seg, pe, term), np.stack((qy, qx), axis=1), w_pos.astype(np.int64), rule


def kernel_busy(plan: Plan, image: int, conv_group: int, weights: WeightVectors, kernels: dict,
                elements: tuple | None = None, serialise: bool = False) -> tuple[np.ndarray, int | None]:
    """:func:`fifo_busy` by the loops of :mod:`.scatter_fifo_kernel` (``kernels``: compiled or plain Python):
    the packed loop on an additive bank mapping or DNNsim's XOR hash with banked products and aligned strides
    (:mod:`.scatter_fifo_rows`), the product loop on what it cannot hold and on the other coordinate rules
    (each product's bank from its output coordinate). The in-plane products are counted (the second value) only
    under ``stride_phases: dnnsim``, the one rule whose counters use them (:mod:`accel_sim.models.scnn.fast`), by the
    product loop. ``elements``: :func:`~.vectors.activation_elements` of the image and conv group, when known.
    ``serialise``: depth 0 whatever the spec's scatter (:func:`serialised_busy`; the in-plane products counted
    under every coordinate rule, as :func:`.products.product_busy` counts them)."""
    spec, view, tiling = plan.spec, plan.view, plan.tiling
    n_seg, groups, pes, banks = weights.seg_start.size - 1, tiling.out_groups, spec.pes, spec.accumulator_banks
    busy = np.zeros((tiling.passes, pes, groups, n_seg), dtype=np.int64)
    coordinates = needs_coordinates(spec)
    (tile, seg, pe, term), a_pos, w_pos, rule = _operands(plan, image, conv_group, weights, elements)
    counted = spec.stride_phases == "dnnsim" or (serialise and coordinates)   # (then the product loop runs every sequence)
    if tile.size == 0 or weights.term.size == 0:
        return busy, (0 if counted else None)
    # the I-vectors' pieces depend on the activations alone: shared by the archs of a run with the same ones
    shared = (activation_key(spec), tiling_key(tiling), plan.traits.skip_activations, image, conv_group)

    def i_vectors() -> tuple[np.ndarray, np.ndarray]:
        key = (tile * n_seg + seg) * pes + pe
        i_elem = np.append(np.flatnonzero(_vector_ids(key, spec.mult_i)[1] == 0), key.size)   # each I-vector's first
        return i_elem, run_bounds(key[i_elem[:-1]], tiling.passes * n_seg * pes)

    def kept(name: str, make):   # every activation (a design not skipping them): the shape's, for the process
        return plan.memo.get(plan.layer, (name,) + shared, make if plan.traits.skip_activations else
                             lambda: shape_piece((name, view, coordinates) + shared, make))

    i_elem, i_bounds = kept("I-vector bounds", i_vectors)
    f_bounds = run_bounds(weights.segment * groups + weights.group, n_seg * groups)
    f_weight = np.concatenate(([0], np.cumsum(weights.count)))   # each F-vector's first weight (FIFO order)
    meet = (np.bincount(seg, minlength=n_seg) > 0) & (np.diff(weights.seg_start) > 0)
    order = phase_order(plan, n_seg)
    meet = np.flatnonzero(meet) if order is None else order[meet[order]]
    nph_h, nph_w = phase_counts(view)
    unit = meet // (nph_h * nph_w) if spec.barrier == "group_channel" else np.zeros_like(meet)
    depth = 0 if serialise else None if spec.scatter == "fifo_unbounded" else spec.scatter_fifo_depth
    term, w_term = term.astype(np.int64, copy=False), weights.term   # int64 or int32 (terms_only)
    todo = np.ones(busy.shape[:3], dtype=bool)
    xor = class_codes(plan)   # DNNsim's XOR hash, banked, aligned strides: banks from the operands' codes
    slot = border_split(plan)   # slot_only, additive mapping, aligned strides: additive but near the edges
    if not serialise and (xor or slot or not coordinates) and packed_fits(banks, depth, spec.mult_f * spec.mult_i):
        rows = xor_rows(plan, i_elem, a_pos, seg[i_elem[:-1]], n_seg, w_pos) if xor else additive_rows(
            kept("I-vector combinations", lambda: i_combinations(i_elem, term, seg[i_elem[:-1]], n_seg, banks)),
            w_term)
        i_local, e_start, e_vec = edge_combinations(rows, edge_vectors(plan, i_elem, a_pos, w_pos) if slot else
                                                    np.zeros(i_elem.size - 1, dtype=bool), seg[i_elem[:-1]], n_seg)
        per_block = (np.diff(rows.c_start) + np.diff(e_start))[:, None] * np.diff(f_bounds).reshape(n_seg, groups)
        loads = np.zeros(max(1, int(per_block.max())) * WORDS, dtype=np.uint64)
        todo[...] = False   # the packed loop flags the sequences it cannot hold (unbounded queues >= 128)
        kernels["packed"](meet, unit, i_bounds, i_local, rows.c_start, rows.c_base, rows.table, f_bounds, f_weight,
                          rows.w_key, (i_elem, term, a_pos, w_term, w_pos, rule, banks), e_start, e_vec, n_seg, banks,
                          -1 if depth is None else depth, busy, todo, loads)
    in_plane = 0
    if serialise:   # depth 0: the step costs alone (coordinates: the packed loop above did not run)
        in_plane = kernels["serialise"](meet, i_bounds, i_elem, term, a_pos, f_bounds, f_weight, w_term, w_pos, rule,
                                        n_seg, banks, busy,
                                        _serialise_codes(plan, i_elem, a_pos, w_pos, rule, seg[i_elem[:-1]]))
    elif todo.any():
        in_plane = kernels["product"](meet, unit, i_bounds, i_elem, term, a_pos, f_bounds, f_weight, w_term, w_pos,
                                      rule, n_seg, banks, -1 if depth is None else depth, busy, todo)
    return busy, (int(in_plane) if counted else None)


def _serialise_codes(plan: Plan, i_elem: np.ndarray, a_pos: np.ndarray, w_pos: np.ndarray, rule: np.ndarray,
                     v_segment: np.ndarray) -> tuple:
    """The ``codes`` of :func:`.scatter_fifo_kernel.serialise_kernel`: the I-vectors' classes under DNNsim's XOR
    hash on untruncated coordinates (:func:`.scatter_fifo_kernel.xor_classes`), else none."""
    if rule[XOR] == 0 or rule[TRUNCATE_Y] != 0 or rule[TRUNCATE_X] != 0 or w_pos.shape[0] == 0:
        return no_codes()
    return xor_classes(a_pos, w_pos, plan.view.out_h, plan.view.out_w, plan.spec.accumulator_banks, v_segment, i_elem)


def serialised_busy(plan: Plan, image: int, conv_group: int, weights: WeightVectors) -> tuple[np.ndarray, int | None]:
    """:func:`.products.product_busy` (``scatter: serialise`` under a coordinate rule that neither
    :func:`~.bank_codes.class_codes` nor :func:`~.products.border_split` covers) by the compiled product loop at
    FIFO depth 0, which is ``serialise`` (the module docstring): a step costs ``max(1, its busiest bank's
    products)`` and the banks are empty after it. Numpy lists every product's bank and output coordinate in
    arrays (DNNsim's 20-layer preset: ~10 s of CPU in :func:`.products.segment_loads` and the XOR hash); the
    loop keeps one step's counts (benchmarks/bench_scnn_dnnsim_preset.py). Without numba, or F-vectors not
    sorted by (segment, group), the numpy path."""
    kernels = KERNELS()
    f_key = weights.segment * plan.tiling.out_groups + weights.group
    if kernels is None or not needs_coordinates(plan.spec) or class_codes(plan) or border_split(plan) or \
            not bool(np.all(f_key[1:] >= f_key[:-1])):
        return product_busy(plan, image, conv_group, weights)
    return kernel_busy(plan, image, conv_group, weights, kernels, serialise=True)


def fifo_busy(plan: Plan, image: int, conv_group: int, weights: WeightVectors,
              elements: tuple | None = None) -> tuple[np.ndarray, int | None]:
    """Busy cycles ``(passes, PEs, groups, segments)`` of every PE with FIFO-buffered banks (each
    barrier unit's drain counted in its last segment), and the products whose output lies in the plane
    (None when not counted, see :class:`~.products.SegmentLoads`). ``elements``: the image's
    :func:`~.vectors.activation_elements` (pass, segment, PE, bank term), when known."""
    spec, tiling = plan.spec, plan.tiling
    kernels = KERNELS()
    f_key = weights.segment * tiling.out_groups + weights.group   # the loops find a block's F-vectors by it
    if kernels is not None and bool(np.all(f_key[1:] >= f_key[:-1])):
        return kernel_busy(plan, image, conv_group, weights, kernels, elements)
    if weights.k is None:   # weight_vectors sorts the F-vectors by (segment, group): never reached
        raise SimulationError(f"{plan.layer.name}: F-vectors not sorted by (segment, group) for the FIFO loops")
    n_seg = weights.seg_start.size - 1
    busy = np.zeros((tiling.passes, spec.pes, tiling.out_groups, n_seg), dtype=np.int64)
    queue = np.zeros((tiling.passes, spec.pes, tiling.out_groups, spec.accumulator_banks), dtype=np.int64)
    nph_h, nph_w = phase_counts(plan.view)
    per_channel = spec.barrier == "group_channel"
    in_plane, last = (0 if needs_coordinates(spec) else None), None

    def drain(segment: int) -> None:   # the banks empty before the barrier
        busy[..., segment] += queue.max(axis=3)
        queue[...] = 0

    for part in segment_loads(plan, image, conv_group, weights, FIFO_PRODUCTS, phase_order(plan, n_seg)):
        if per_channel and last is not None and part.segment // (nph_h * nph_w) != last // (nph_h * nph_w):
            drain(last)
        if part.in_plane is not None:
            in_plane += part.in_plane
        if spec.scatter == "fifo_unbounded":
            _unbounded(part, queue, busy)
        else:
            _bounded(part, spec.scatter_fifo_depth, queue, busy)
        last = part.segment
    if last is not None:
        drain(last)
    return busy, in_plane
