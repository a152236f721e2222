"""Fast path: every step's cost from the value bits, vectorised over steps, windows and lanes.

Bit facts come from 2^16-entry tables (msb, lsb, popcount, Booth terms) indexed by the 16-bit words.
A value v of a signed tensor is first folded to its magnitude form (v < 0: -v - 1, i.e. v XOR 0xFFFF)
and its width grows by the sign bit s; Pragmatic and Laconic use |v|. msb(0) = 0, lsb(0) = 16.
Per step, each issuing tile has a cost per unit (a column group, a column, or the whole tile):

- dadiannao: 1; stripes: p_a;
- shapeshifter: per group of ``group_size`` windows, (max msb + s) + 1 over its windows x lanes
  (``minor_bit``: max msb + s - min lsb + 1, 1 + s for an all-zero group); with Bit-Tactical the
  activations each filter slot selects;
- loom: ceil(A / pe_serial_bits) x p_w, A the widest group as above; ``dynamic_weights``: x W_t,
  the widest filter of the tile (max msb + s + 1 over its lanes);
- pragmatic: per window, cycles of the two-stage shifter over its lanes' terms (each cycle every lane
  retires its lowest term within 2^bits_first_stage - 1 positions of the lowest pending term of the
  window); with Bit-Tactical the slowest filter's selection;
- laconic: max(1, max over windows x filters x lanes of terms(a) x terms(w));
- bitfusion: ceil(lanes x (a'/2) x (w'/2) / bricks), a' and w' the precisions rounded up to 2 / 4 / 8 / 16.

A unit's cost is the max over tiles; without column registers a step costs its slowest unit, with them
each unit runs ahead up to ``column_registers`` steps (a short loop over steps, not over values).
"""
from __future__ import annotations

import functools
import math
import types

import numpy as np

from accel_sim.foundations.compiled import compiled_loop
from accel_sim.foundations.errors import SimulationError
from accel_sim.models.bitserial.counters import BitSerialCounters
from accel_sim.models.bitserial.plan import BitSerialPlan, Chunk, Pass

WORDS = np.arange(1 << 16, dtype=np.int64)
MSB = np.where(WORDS > 0, np.floor(np.log2(np.maximum(WORDS, 1))), 0).astype(np.int16)
LSB = np.where(WORDS > 0, np.log2(np.maximum(WORDS & -WORDS, 1)), 16).astype(np.int16)
POPCOUNT = np.unpackbits(WORDS.astype('>u2').view(np.uint8).reshape(-1, 2), axis=1).sum(axis=1).astype(np.int16)


def _booth_table() -> np.ndarray:
    """DNNsim's sequential Booth-like recoder (core/src/Utils.cpp:26-65) on every 16-bit word at once:
    output bit j looks at bits (j, j-1, j-2) of n, most significant first, with a carry flag."""
    out = np.zeros_like(WORDS)
    flag = np.zeros(WORDS.shape, dtype=bool)
    padded = WORDS << 2
    for i in range(16):
        code = (padded >> (15 - i)) & 0b111
        out = (out << 1) & 0xFFFF
        out |= (((code == 2) | (code == 3)) & flag) | (code == 4) | (((code == 5) | (code == 6)) & ~flag)
        seven = (code == 7) & ~flag
        out |= np.where(seven, 2, 0)
        flag = np.where(code == 4, False, flag | seven)
    return out


BOOTH = _booth_table()
BOOTH_TERMS = POPCOUNT[BOOTH]


def folded(values: np.ndarray, signed: bool) -> np.ndarray:
    """16-bit magnitude form of a two's complement tensor (negative v -> -v - 1 when signed)."""
    words = values.astype(np.int64) & 0xFFFF
    return np.where(signed & (words >= 1 << 15), words ^ 0xFFFF, words)


def magnitudes(values: np.ndarray) -> np.ndarray:
    return np.abs(values.astype(np.int64)) & 0xFFFF


def pragmatic_cycles(terms: np.ndarray, first_stage_bits: int) -> np.ndarray:
    """Cycles of Pragmatic's two-stage shifter over the last axis (lanes) of ``terms``: each cycle, every
    lane retires its lowest pending term if it lies within 2^bits - 1 positions of the lowest pending term
    of all lanes; at least one cycle. With numba, one compiled loop over the groups (:func:`shifter_rows`;
    the bit-serial study's largest cost, about 15x faster); without it, one vectorised pass per cycle over
    the groups still busy (:func:`shifter_passes`). Both give the same cycles (tests run both)."""
    kernels = _compiled_shifter()
    if kernels is None:
        return shifter_passes(terms, first_stage_bits)
    words = np.ascontiguousarray(terms.reshape(-1, terms.shape[-1]), dtype=np.int64)
    return kernels["rows"](words, (1 << first_stage_bits) - 1, LSB).reshape(terms.shape[:-1])


def shifter_passes(terms: np.ndarray, first_stage_bits: int) -> np.ndarray:
    """:func:`pragmatic_cycles` in numpy: one vectorised pass per cycle, over the groups still busy."""
    shape = terms.shape[:-1]
    words = terms.reshape(-1, terms.shape[-1]).astype(np.int32)
    cycles = np.zeros(words.shape[0], dtype=np.int32)
    index = np.flatnonzero(words.any(axis=1))
    words = words[index]
    reach = (1 << first_stage_bits) - 1
    while index.size:
        low = LSB[words]
        hit = low <= low.min(axis=1, keepdims=True) + reach
        words = np.where(hit, words & (words - 1), words)
        cycles[index] += 1
        busy = words.any(axis=1)
        index, words = index[busy], words[busy]
    return np.maximum(cycles, 1).reshape(shape)


def shifter_count(pending: np.ndarray, union: int, reach: int, lsb: np.ndarray) -> int:
    """Cycles of one group's lanes ``pending`` (int64 16-bit terms, consumed in place; ``union``: the OR of the lanes;
    ``lsb``: :data:`LSB`), at least one: the loop of :func:`shifter_passes` for one group, lane by lane. The group's
    lowest pending term is that of the lanes' OR; a lane's lowest term lies within ``reach`` positions of it when
    the lane has a bit in the ``window`` of positions up to that one + reach. Each cycle's pass over the lanes
    retires their terms and ORs what is left."""
    lanes = pending.shape[0]
    count = 0
    while union:
        window = (2 << (int(lsb[union]) + reach)) - 1
        union = 0
        for j in range(lanes):
            term = pending[j]
            if term & window:
                term &= term - 1
                pending[j] = term
            union |= term
        count += 1
    return max(count, 1)


def shifter_rows(words: np.ndarray, reach: int, lsb: np.ndarray) -> np.ndarray:
    """:func:`pragmatic_cycles` of each row of ``words`` (groups, lanes; int64, 16-bit terms): the loop numba
    compiles. Plain Python too (slow; the tests run it on small rows)."""
    groups, lanes = words.shape
    cycles = np.ones(groups, dtype=np.int32)
    pending = np.empty(lanes, dtype=np.int64)
    for g in range(groups):
        union = 0
        for j in range(lanes):
            pending[j] = words[g, j]
            union |= words[g, j]
        cycles[g] = shifter_count(pending, union, reach, lsb)
    return cycles


def tactical_rows(terms: np.ndarray, picks: np.ndarray, filters: np.ndarray, reach: int, lsb: np.ndarray
                  ) -> np.ndarray:
    """Bit-Tactical Pragmatic cycles per (window set, call, tile, column): for each filter row of a tile, the
    shifter over the terms its lanes select, the slowest present filter row (``filters``), 0 without one.
    ``terms`` ``(window sets, columns, T x lanes + 1)``: a column's terms line after line, then a 0; ``picks``
    ``(calls, tiles, rows, lanes)``: the term each slot selects (line x lanes + lane), or the last (the 0) where
    the slot selects nothing. :func:`_pragmatic`'s numpy lines, without their (window sets x columns x calls x
    tiles x rows x lanes) temporaries: the loop numba compiles."""
    sets, columns = terms.shape[0], terms.shape[1]
    calls, tiles, rows, lanes = picks.shape
    out = np.zeros((sets, calls, tiles, columns), dtype=np.int32)
    pending = np.empty(lanes, dtype=np.int64)
    for w in range(sets):
        for c in range(calls):
            for t in range(tiles):
                for r in range(rows):
                    if not filters[t, r]:
                        continue
                    for col in range(columns):
                        union = 0
                        for j in range(lanes):
                            pending[j] = terms[w, col, picks[c, t, r, j]]
                            union |= pending[j]
                        out[w, c, t, col] = max(out[w, c, t, col], shifter_count(pending, union, reach, lsb))
    return out


@functools.cache
def _compiled_shifter() -> dict | None:
    """:func:`shifter_rows` and :func:`tactical_rows` compiled by numba (cached on disk), or None when numba is
    not installed; loaded on first use, so designs other than Pragmatic never load numba."""
    try:
        from numba import njit
    except ImportError:   # pragma: no cover - depends on the environment
        return None
    jit = functools.partial(njit, cache=True, nogil=True)
    count = jit(shifter_count, inline="always")
    return {name: jit(types.FunctionType(f.__code__, dict(f.__globals__, shifter_count=count), f.__name__))
            for name, f in (("rows", shifter_rows), ("tactical", tactical_rows))}


class _Layer:
    """The layer-wide facts every step's cost reads: signs, column groups and timeline units."""

    def __init__(self, plan: BitSerialPlan) -> None:
        self.plan, self.spec = plan, plan.spec
        columns = np.arange(plan.spec.columns)
        self.groups = math.ceil(plan.spec.columns / plan.spec.group_size)
        self.group_of_column = columns // plan.spec.group_size
        design = plan.spec.design
        self.units = {"shapeshifter": self.groups, "pragmatic": plan.spec.columns}.get(design, 1)
        self.unit_of_column = {"shapeshifter": self.group_of_column, "pragmatic": columns}.get(
            design, np.zeros_like(columns))
        self._per_chunk: dict = {}

    @functools.cached_property
    def s_act(self) -> int:   # read from the values: only by the designs whose costs look at them
        return int(self.plan.act_signed)

    @functools.cached_property
    def s_wgt(self) -> int:
        return int(self.plan.wgt_signed)

    def once(self, chunk: Chunk, name: str, make):
        """``make()``, made once per chunk: a chunk's facts are the same in every pass and window set."""
        key = (id(chunk), name)
        if key not in self._per_chunk:
            self._per_chunk[key] = make()
        return self._per_chunk[key]

    def widths(self, msb: np.ndarray, lsb: np.ndarray, present: np.ndarray) -> np.ndarray:
        """Group widths ``(WS, ..., groups)`` from per-column ``msb`` (+s) and ``lsb`` ``(WS, ..., columns)``;
        a group without a present window: 0."""
        member = self.group_of_column[None, :] == np.arange(self.groups)[:, None]     # (groups, columns)
        inside = member[None] & present[:, None, :]                                      # (WS, groups, columns)
        inside = inside.reshape(inside.shape[0], *([1] * (msb.ndim - 2)), *member.shape)
        top = np.where(inside, msb[..., None, :], 0).max(axis=-1)
        width = top + 1
        if self.spec.minor_bit:
            low = np.where(inside, lsb[..., None, :], 16).min(axis=-1)
            width = np.where(low > top, 1 + self.s_act, top - low + 1)
        return np.where(inside.any(axis=-1), width, 0)


def _lines(chunk: Chunk) -> tuple[np.ndarray, np.ndarray]:
    """(line, issuing) of each (call, tile); line clipped to 0 where the tile issues nothing."""
    return np.maximum(chunk.lines, 0), chunk.lines >= 0


def _activation_widths(facts: _Layer, p: Pass, chunk: Chunk, ws: slice) -> np.ndarray:
    """ShapeShifter / Loom group widths per (window set, call, tile, group)."""
    plan = facts.plan
    words = folded(p.acts[ws], facts.s_act)
    msb, lsb = MSB[words] + facts.s_act, LSB[words]                       # (WS, T, columns, lanes)
    line, issuing = _lines(chunk)
    present = p.present[ws]
    if not plan.spec.tactical:
        col_msb, col_lsb = msb.max(axis=-1), lsb.min(axis=-1)              # (WS, T, columns)
        width = facts.widths(col_msb, col_lsb, present)                    # (WS, T, groups)
        return np.where(issuing[None, :, :, None], width[:, line], 0)
    rows, used = facts.once(chunk, "used", lambda: _used(plan.spec, chunk))
    loop = compiled_loop(selected_bits)
    if loop is not None:
        sel_msb, sel_lsb = loop(msb, lsb, rows, used)                       # (WS, calls, tiles, cols)
    else:
        sel_msb, sel_lsb = selected_bits_numpy(msb, lsb, rows, used)
    width = facts.widths(sel_msb, sel_lsb, present)
    return np.where(issuing[None, :, :, None], width, 0)


def _sources(spec, chunk: Chunk) -> tuple[np.ndarray, np.ndarray]:
    """Bit-Tactical: the (line, lane) whose activation each slot of each (call, tile) selects, ``(calls, tiles, rows,
    lanes)`` each."""
    line, _ = _lines(chunk)
    tiles = np.arange(line.shape[1])[None, :, None, None]
    rows = np.arange(spec.rows)[None, None, :, None]
    lanes = np.arange(spec.lanes)[None, None, None, :]
    return (chunk.source_step[tiles, line[:, :, None, None], rows, lanes],
            chunk.source_lane[tiles, line[:, :, None, None], rows, lanes])


def _used(spec, chunk: Chunk) -> tuple[np.ndarray, np.ndarray]:
    """Bit-Tactical ShapeShifter / Loom: ``(rows (calls, tiles, h+1), used (calls, tiles, h+1, lanes))``: the lines a
    tile's slots reach from its line (clipped to the last) and the (line, lane)s a present filter's slot selects."""
    h = spec.lookahead_h
    line, _ = _lines(chunk)
    src_t, src_l = _sources(spec, chunk)
    offset = src_t - line[:, :, None, None]
    keep = (offset >= 0) & chunk.filters[np.arange(line.shape[1])][None, :, :, None]
    used = np.zeros(line.shape + (h + 1, spec.lanes), dtype=bool)      # (calls, tiles, h+1, lanes)
    c_i, t_i, _, _ = np.nonzero(keep)
    used[c_i, t_i, offset[keep], src_l[keep]] = True
    rows = np.minimum(line[:, :, None] + np.arange(h + 1), chunk.weights.shape[1] - 1)     # (calls, tiles, h+1)
    return rows, used


def selected_bits_numpy(msb: np.ndarray, lsb: np.ndarray, rows: np.ndarray, used: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`selected_bits` in numpy, through (window sets, calls, tiles, h + 1, columns, lanes) temporaries."""
    sel_msb = np.where(used[None, :, :, :, None, :], msb[:, rows], 0).max(axis=(3, 5))
    sel_lsb = np.where(used[None, :, :, :, None, :], lsb[:, rows], 16).min(axis=(3, 5))
    return sel_msb, sel_lsb


def selected_bits(msb: np.ndarray, lsb: np.ndarray, rows: np.ndarray, used: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Bit-Tactical ShapeShifter / Loom: per (window set, call, tile, column), the highest ``msb`` (0 if none) and
    the lowest ``lsb`` (16 if none) of the activations a tile's slots select: ``used`` ``(calls, tiles, h + 1,
    lanes)`` marks (line ``rows[call, tile, k]``, lane) of ``msb`` / ``lsb`` ``(window sets, T, columns, lanes)``.
    The loop numba compiles; plain Python too (slow; the tests run it on small buffers)."""
    sets, columns = msb.shape[0], msb.shape[2]
    calls, tiles, ahead, lanes = used.shape
    top = np.zeros((sets, calls, tiles, columns), dtype=msb.dtype)
    low = np.full((sets, calls, tiles, columns), 16, dtype=lsb.dtype)
    for w in range(sets):
        for c in range(calls):
            for t in range(tiles):
                for k in range(ahead):
                    row = rows[c, t, k]
                    for j in range(lanes):
                        if not used[c, t, k, j]:
                            continue
                        for col in range(columns):
                            top[w, c, t, col] = max(top[w, c, t, col], msb[w, row, col, j])
                            low[w, c, t, col] = min(low[w, c, t, col], lsb[w, row, col, j])
    return top, low


def _weight_widths(facts: _Layer, chunk: Chunk) -> np.ndarray:
    """Loom's run-time weight width per (tile, line): the widest filter group of the tile."""
    spec = facts.spec
    words = folded(chunk.weights, facts.s_wgt)
    msb = (MSB[words] + facts.s_wgt).max(axis=-1)                            # (tiles, T, rows)
    lsb = LSB[words].min(axis=-1)
    groups = math.ceil(spec.rows / spec.group_size)
    member = (np.arange(spec.rows)[None, :] // spec.group_size) == np.arange(groups)[:, None]
    inside = member[None, None] & chunk.filters[:, None, None, :]             # (tiles, 1, groups, rows)
    top = np.where(inside, msb[:, :, None, :], 0).max(axis=-1)
    width = top + 1
    if spec.minor_bit:
        low = np.where(inside, lsb[:, :, None, :], 16).min(axis=-1)
        width = np.where(low > top, 1 + facts.s_wgt, top - low + 1)
    return np.where(inside.any(axis=-1), width, 0).max(axis=-1)               # (tiles, T)


def _pragmatic(facts: _Layer, p: Pass, chunk: Chunk, ws: slice) -> np.ndarray:
    """Pragmatic cycles per (window set, call, tile, column)."""
    spec = facts.spec
    terms = magnitudes(p.acts[ws])
    if spec.booth_encoding:
        terms = BOOTH[terms]
    line, issuing = _lines(chunk)
    present = p.present[ws][:, None, None, :]
    if not spec.tactical:
        cycles = pragmatic_cycles(terms, spec.bits_first_stage)             # (WS, T, columns)
        return np.where(issuing[None, :, :, None] & present, cycles[:, line], 0)
    src_t, src_l = facts.once(chunk, "sources", lambda: _sources(spec, chunk))     # (calls, tiles, rows, lanes)
    keep = src_t >= line[:, :, None, None]
    kernels = _compiled_shifter()
    if kernels is not None:
        sets, steps, columns, _ = terms.shape
        flat = np.zeros((sets, columns, steps * spec.lanes + 1), dtype=np.int32)   # the last term: a 0
        flat[:, :, :-1] = terms.transpose(0, 2, 1, 3).reshape(sets, columns, -1)
        picks = facts.once(chunk, "picks", lambda: np.where(keep, src_t * spec.lanes + src_l,
                                                               steps * spec.lanes).astype(np.int32))
        cycles = kernels["tactical"](flat, picks, chunk.filters, (1 << spec.bits_first_stage) - 1, LSB)
        return np.where(issuing[None, :, :, None] & present, cycles, 0)
    picked = terms.transpose(0, 2, 1, 3)[:, :, src_t, src_l]                 # (WS, columns, calls, tiles, rows, lanes)
    picked = np.where(keep[None, None], picked, 0)
    cycles = pragmatic_cycles(picked, spec.bits_first_stage)                # (WS, columns, calls, tiles, rows)
    cycles = np.where(chunk.filters[None, None, None], cycles, 0).max(axis=-1).transpose(0, 2, 3, 1)
    return np.where(issuing[None, :, :, None] & present, cycles, 0)


def _tile_costs(facts: _Layer, p: Pass, chunk: Chunk, ws: slice) -> np.ndarray:
    """Cost of each (window set, call, issuing tile, unit); 0 where the tile issues nothing or the unit is absent."""
    plan, spec = facts.plan, facts.spec
    line, issuing = _lines(chunk)
    count = p.present[ws].shape[0]
    flat = np.broadcast_to(issuing[None, :, :, None], (count, *issuing.shape, 1)).astype(np.int64)
    if spec.design == "dadiannao":
        return flat
    if spec.design == "stripes":
        return flat * plan.act_bits
    if spec.design == "bitfusion":
        return flat * plan.fusion_cycles
    if spec.design == "shapeshifter":
        return _activation_widths(facts, p, chunk, ws)
    if spec.design == "pragmatic":
        return _pragmatic(facts, p, chunk, ws)
    if spec.design == "loom":
        serial = -(-_activation_widths(facts, p, chunk, ws).max(axis=-1, keepdims=True) // spec.pe_serial_bits)
        if not spec.dynamic_weights:
            return serial * plan.wgt_bits
        weight = _weight_widths(facts, chunk)[np.arange(line.shape[1])[None, :], line]     # (calls, tiles)
        return serial * weight[None, :, :, None]
    # laconic
    act_terms = _terms(plan, magnitudes(p.acts[ws])).max(axis=2)                             # (WS, T, lanes)
    wgt_terms = np.where(chunk.filters[:, None, :, None], _terms(plan, magnitudes(chunk.weights)), 0).max(axis=2)
    tiles = np.arange(line.shape[1])[None, :]
    products = (act_terms[:, line] * wgt_terms[tiles, line][None]).max(axis=-1)           # (WS, calls, tiles)
    return np.where(issuing[None], np.maximum(products, 1), 0)[..., None]


def _terms(plan: BitSerialPlan, mags: np.ndarray) -> np.ndarray:
    return (BOOTH_TERMS if plan.spec.booth_encoding else POPCOUNT)[mags]


def _timeline(spec, unit_costs: np.ndarray) -> int:
    """Cycles of the steps' unit costs ``(steps, units)`` in order (column registers: run-ahead)."""
    if spec.design not in ("shapeshifter", "pragmatic") or spec.column_registers == 0:
        return int(unit_costs.max(axis=1).sum())
    loop = compiled_loop(run_ahead)
    if loop is None:
        return run_ahead(unit_costs.tolist(), spec.column_registers)
    return int(loop(np.ascontiguousarray(unit_costs, dtype=np.int64), spec.column_registers))


def run_ahead(unit_costs, registers: int) -> int:
    """Cycles of the steps' unit costs ``(steps, units)`` when each unit runs ahead of the slowest by up to
    ``registers`` steps: a unit starts step i when it is done with its last one and every unit is done with step
    i - registers - 1. The loop numba compiles; plain Python on lists too (the path without numba)."""
    ring = [0] * registers
    units = len(unit_costs[0]) if len(unit_costs) else 0
    done = [0] * units
    ready, slot = 0, 0
    for costs in unit_costs:
        last = 0
        for u in range(units):
            done[u] = max(ready, done[u]) + costs[u]
            last = max(last, done[u])
        ready, ring[slot] = ring[slot], last
        slot = (slot + 1) % registers
    cycles = 0
    for u in range(units):
        cycles = max(cycles, done[u])
    return cycles


def _batches(p: Pass, chunk: Chunk, spec) -> list[slice]:
    per_set = max(1, chunk.lines.size * spec.columns * spec.rows * spec.lanes)
    size = max(1, 8_000_000 // per_set)
    return [slice(i, i + size) for i in range(0, p.present.shape[0], size)]


def fast(plan: BitSerialPlan, max_cycles: int | None = None) -> BitSerialCounters:
    spec = plan.spec
    facts = _Layer(plan)
    blocks, totals = [], dict(steps=0, tile_steps=0, pe_steps=0, idle_pe_steps=0, serial_cycles=0,
                              activation_reads=0, weight_reads=0, activation_words=0,
                              weight_words=0, macs_issued=0, output_words=0)
    for p in plan.passes:
        per_chunk = []
        windows = p.present.sum(axis=1)                                         # (WS,)
        for chunk in plan.chunks[p.group]:
            line, issuing = _lines(chunk)
            filters = chunk.filters.sum(axis=1)                                 # (tiles,)
            held = facts.once(chunk, "held", lambda: _held_slots(plan, chunk))   # per (tile, line), every pass
            slots = held[np.arange(line.shape[1])[None, :], line] * issuing     # (calls, tiles)
            costs = np.concatenate([_tile_costs(facts, p, chunk, ws) for ws in _batches(p, chunk, spec)])
            unit = costs.max(axis=2)                                             # (WS, calls, units)
            if spec.design == "shapeshifter":
                _phantom(facts, p, unit)
            per_chunk.append(unit)
            column_cost = costs[..., facts.unit_of_column] * p.present[:, None, None, :]   # (WS, calls, tiles, cols)
            calls = line.shape[0]
            n_issuing = int(issuing.sum())
            totals["steps"] += len(windows) * calls
            totals["tile_steps"] += len(windows) * n_issuing
            pe = int(windows.sum()) * int((issuing * filters[None, :]).sum())
            totals["pe_steps"] += pe
            totals["idle_pe_steps"] += len(windows) * n_issuing * spec.columns * spec.rows - pe
            totals["serial_cycles"] += int((column_cost.sum(axis=3) * filters[None, None, :]).sum())
            totals["activation_reads"] += int(windows.sum()) * calls * spec.lanes
            totals["weight_reads"] += len(windows) * int((issuing * filters[None, :]).sum()) * spec.lanes
            totals["activation_words"] += int(windows.sum()) * calls * plan.activation_line_words
            totals["weight_words"] += len(windows) * int((issuing * filters[None, :]).sum()) * plan.weight_line_words
            totals["macs_issued"] += int(windows.sum()) * int(slots.sum())
            totals["output_words"] += int(windows.sum()) * int(filters.sum()) * plan.output_value_words
        if per_chunk:
            blocks.append(np.concatenate(per_chunk, axis=1).reshape(-1, facts.units))
    cycles = _timeline(spec, np.concatenate(blocks)) if blocks else 0
    if max_cycles is not None and cycles > max_cycles:
        raise SimulationError(f"{plan.layer.name}: {cycles} cycles exceed max_cycles={max_cycles}")
    return BitSerialCounters(cycles=cycles, **totals)


def _held_slots(plan: BitSerialPlan, chunk: Chunk) -> np.ndarray:
    """Slots of each (tile, line) holding a weight of the layer that is not demoted; without Bit-Tactical each
    present filter row holds the line's real lanes."""
    if not plan.spec.tactical:
        return chunk.filters.sum(axis=1)[:, None] * plan.real_lanes.sum(axis=1)[None, :]
    held = chunk.real & (chunk.source_step >= np.arange(chunk.real.shape[1])[None, :, None, None])
    return held.sum(axis=(2, 3))


def _phantom(facts: _Layer, p: Pass, unit: np.ndarray) -> None:
    """DNNsim closes a trailing group after the windows of a partial window set: the first group after
    the last present window (when the windows fill whole groups) costs an empty group's width
    (ShapeShifter.cpp:222-227; it matters only with column registers)."""
    spec = facts.spec
    windows = p.present.sum(axis=1)
    ws = np.flatnonzero((windows % spec.group_size == 0) & (windows < spec.columns))
    if ws.size:
        group = windows[ws] // spec.group_size
        empty = 1 + facts.s_act if spec.minor_bit else 1
        unit[ws, :, group] = np.maximum(unit[ws, :, group], empty)
