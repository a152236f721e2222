"""Discrete-event reference of the bit-serial tiles (SimPy), for tests and small layers.

Agents:

- the **tiles**: at every step each issuing tile looks at the value bits of its step (its line of
  weights, the activations each of its slots selects) and states how long each of its column units
  needs, value by value in plain Python (no tables, no vectorisation: an independent statement of
  the rules listed in :mod:`accel_sim.models.bitserial.fast`'s docstring);
- one process per **column unit** (a ShapeShifter column group, a Pragmatic column, or the whole grid
  for the other designs): for each step it waits until every unit has finished the step
  ``column_registers + 1`` steps back (a barrier per step; without column registers, the previous
  step), then works for the step's cost, the slowest tile's for that unit.

The layer ends when every unit has finished the last step. Events are per unit per step and per
step barrier, never per value or per bit.
"""
from __future__ import annotations

from functools import lru_cache

import simpy

from accel_sim.hardware import run_until_done
from accel_sim.hardware.recorder import BARRIER, COMPUTE, Recorder
from accel_sim.models.bitserial.counters import BitSerialCounters
from accel_sim.models.bitserial.plan import BitSerialPlan, Chunk, Pass


def _word(value: int, signed: bool) -> int:
    word = int(value) & 0xFFFF
    return word ^ 0xFFFF if signed and word & 0x8000 else word


def _msb(word: int) -> int:
    return word.bit_length() - 1 if word else 0


def _lsb(word: int) -> int:
    return (word & -word).bit_length() - 1 if word else 16


@lru_cache(maxsize=None)
def _booth(n: int) -> int:
    """DNNsim's Booth-like recoder, as its source states it: an 18-character bit string of n << 2 read
    three characters at a time, most significant first (core/src/Utils.cpp:26-65)."""
    bits, out, flag = format(n << 2, "018b"), 0, False
    for i in range(16):
        window = bits[i:i + 3]
        out = (out << 1) & 0xFFFF
        if window in ("010", "011") and flag:
            out |= 1
        elif window == "100":
            out, flag = out | 1, False
        elif window in ("101", "110") and not flag:
            out |= 1
        elif window == "111" and not flag:
            out, flag = out | 2, True
    return out


def _terms(value: int, booth: bool) -> int:
    magnitude = abs(int(value)) & 0xFFFF
    return _booth(magnitude) if booth else magnitude


def _pragmatic(words: list[int], first_stage_bits: int) -> int:
    pending, cycles = [w for w in words if w], 0
    while pending:
        reach = min(_lsb(w) for w in pending) + (1 << first_stage_bits) - 1
        pending = [w & (w - 1) if _lsb(w) <= reach else w for w in pending]
        pending = [w for w in pending if w]
        cycles += 1
    return max(cycles, 1)


class _Tile:
    """One tile at one step: its line, its filters and the activations its slots select."""

    def __init__(self, plan: BitSerialPlan, p: Pass, ws: int, chunk: Chunk, tile: int, line: int) -> None:
        self.plan, self.spec = plan, plan.spec
        self.p, self.ws, self.chunk, self.tile, self.line = p, ws, chunk, tile, line
        self.columns = [c for c in range(self.spec.columns) if p.present[ws, c]]
        self.filters = [f for f in range(self.spec.rows) if chunk.filters[tile, f]]

    def selected(self, column: int, filt: int | None) -> list[int]:
        """The activations a filter's slots select in a column (without Bit-Tactical: the line's)."""
        acts, lanes = self.p.acts[self.ws], range(self.spec.lanes)
        if filt is None:
            return [int(acts[self.line, column, lane]) for lane in lanes]
        step = self.chunk.source_step[self.tile, self.line, filt]
        lane_of = self.chunk.source_lane[self.tile, self.line, filt]
        return [int(acts[step[lane], column, lane_of[lane]]) for lane in lanes if step[lane] >= self.line]

    def column_values(self, column: int) -> list[int]:
        if not self.spec.tactical:
            return self.selected(column, None)
        return [v for f in self.filters for v in self.selected(column, f)]

    def width(self, words: list[int], signed: bool) -> int:
        top = max([_msb(w) + signed for w in words], default=0)
        if not self.spec.minor_bit:
            return top + 1
        low = min([_lsb(w) for w in words], default=16)
        return 1 + signed if low > top else top - low + 1

    def group_widths(self) -> dict[int, int]:
        size, signed = self.spec.group_size, self.plan.act_signed
        widths = {}
        for start in range(0, len(self.columns), size):
            words = [_word(v, signed) for c in self.columns[start:start + size] for v in self.column_values(c)]
            widths[start // size] = self.width(words, signed)
        if len(self.columns) % size == 0 and len(self.columns) < self.spec.columns:   # DNNsim's trailing group
            widths[len(self.columns) // size] = self.width([], signed)
        return widths

    def weight_width(self) -> int:
        size, signed = self.spec.group_size, self.plan.wgt_signed
        row = self.chunk.weights[self.tile, self.line]
        widths = [self.width([_word(v, signed) for f in self.filters[s:s + size] for v in row[f]], signed)
                  for s in range(0, len(self.filters), size)]
        return max(widths)

    def costs(self) -> dict[int, int]:
        """This tile's cycles per unit (column group, column, or 0 for the whole grid)."""
        spec, plan = self.spec, self.plan
        design = spec.design
        if design == "dadiannao":
            return {0: 1}
        if design == "stripes":
            return {0: plan.act_bits}
        if design == "bitfusion":
            return {0: plan.fusion_cycles}
        if design == "shapeshifter":
            return self.group_widths()
        if design == "loom":
            serial = -(-max(self.group_widths().values()) // spec.pe_serial_bits)
            return {0: serial * (self.weight_width() if spec.dynamic_weights else plan.wgt_bits)}
        if design == "pragmatic":
            out = {}
            for c in self.columns:
                sets = [self.selected(c, f) for f in self.filters] if spec.tactical else [self.selected(c, None)]
                out[c] = max(_pragmatic([_terms(v, spec.booth_encoding) for v in s], spec.bits_first_stage)
                             for s in sets)
            return out
        best = 1  # laconic
        row = self.chunk.weights[self.tile, self.line]
        for c in self.columns:
            acts = self.selected(c, None)
            for f in self.filters:
                for lane in range(spec.lanes):
                    terms = (bin(_terms(acts[lane], spec.booth_encoding)).count("1")
                             * bin(_terms(row[f, lane], spec.booth_encoding)).count("1"))
                    best = max(best, terms)
        return {0: best}

    def unit_of(self, column: int) -> int:
        return {"shapeshifter": column // self.spec.group_size, "pragmatic": column}.get(self.spec.design, 0)

    def slots(self) -> int:
        """Slots of the line holding a weight of the layer that is not demoted."""
        held = self.chunk.real[self.tile, self.line] & (self.chunk.source_step[self.tile, self.line] >= self.line)
        return int(held.sum())


class _Tally:
    def __init__(self) -> None:
        self.counts = dict(steps=0, tile_steps=0, pe_steps=0, idle_pe_steps=0, serial_cycles=0,
                           activation_reads=0, weight_reads=0, activation_words=0,
                           weight_words=0, macs_issued=0, output_words=0)

    def step(self, plan: BitSerialPlan, tiles: list[_Tile], tile_costs: list[dict[int, int]]) -> None:
        spec, c = plan.spec, self.counts
        c["steps"] += 1
        c["activation_reads"] += len(tiles[0].columns) * spec.lanes
        c["activation_words"] += len(tiles[0].columns) * plan.activation_line_words
        for tile, costs in zip(tiles, tile_costs):
            pe = len(tile.columns) * len(tile.filters)
            c["tile_steps"] += 1
            c["pe_steps"] += pe
            c["idle_pe_steps"] += spec.columns * spec.rows - pe
            c["serial_cycles"] += sum(costs[tile.unit_of(col)] for col in tile.columns) * len(tile.filters)
            c["weight_reads"] += len(tile.filters) * spec.lanes
            c["weight_words"] += len(tile.filters) * plan.weight_line_words
            c["macs_issued"] += tile.slots() * len(tile.columns)

    def outputs(self, plan: BitSerialPlan, p: Pass, ws: int, chunk: Chunk) -> None:
        """A window set's outputs of a chunk's filters, written once its lines are done."""
        windows = sum(1 for c in range(plan.spec.columns) if p.present[ws, c])
        filters = sum(1 for row in chunk.filters for present in row if present)
        self.counts["output_words"] += windows * filters * plan.output_value_words


def _step_costs(plan: BitSerialPlan, tally: _Tally, macs: list[dict[int, int]] | None = None) -> list[dict[int, int]]:
    """Every step's cost per unit, the slowest tile's, in step order (``macs``: filled with each
    step's MACs per unit, the tiles' slots times their columns in the unit, for the recorder)."""
    out = []
    for p in plan.passes:
        for ws in range(p.acts.shape[0]):
            for chunk in plan.chunks[p.group]:
                for call in range(chunk.lines.shape[0]):
                    tiles = [_Tile(plan, p, ws, chunk, t, int(line))
                             for t, line in enumerate(chunk.lines[call]) if line >= 0]
                    if not tiles:
                        tally.counts["steps"] += 1
                        out.append({})
                        if macs is not None:
                            macs.append({})
                        continue
                    tile_costs = [tile.costs() for tile in tiles]
                    tally.step(plan, tiles, tile_costs)
                    step: dict[int, int] = {}
                    for costs_of_tile in tile_costs:
                        for unit, cost in costs_of_tile.items():
                            step[unit] = max(step.get(unit, 0), cost)
                    out.append(step)
                    if macs is not None:
                        macs.append(_unit_macs(tiles))
                tally.outputs(plan, p, ws, chunk)
    return out


def _unit_macs(tiles: list[_Tile]) -> dict[int, int]:
    per_unit: dict[int, int] = {}
    for tile in tiles:
        slots = tile.slots()
        for column in tile.columns:
            unit = tile.unit_of(column)
            per_unit[unit] = per_unit.get(unit, 0) + slots
    return per_unit


def reference(plan: BitSerialPlan, max_cycles: int | None = None, recorder: Recorder | None = None) -> BitSerialCounters:
    """``recorder`` (teaching traces): each unit's steps (their MACs) and its waits for the units
    ``column_registers + 1`` steps behind (no counter counts these: shown as waits)."""
    spec = plan.spec
    tally = _Tally()
    macs: list[dict[int, int]] | None = [] if recorder is not None else None
    costs = _step_costs(plan, tally, macs)
    units = sorted({u for step in costs for u in step}) or [0]
    lag = spec.column_registers if spec.design in ("shapeshifter", "pragmatic") else 0
    env = simpy.Environment()
    finished = [[env.event() for _ in units] for _ in costs]
    barrier = [env.all_of(step) for step in finished]

    agents = {u: f"unit {u}" if len(units) > 1 else "grid" for u in units}
    if recorder is not None:
        for agent in agents.values():
            recorder.agent(agent, "pe")

    def unit(index: int, name: int):
        for n, step in enumerate(costs):
            if n - 1 - lag >= 0:
                waiting = env.now
                yield barrier[n - 1 - lag]
                if recorder is not None and env.now > waiting:
                    recorder.record(agents[name], BARRIER, waiting, env.now, f"wait for step {n - 1 - lag}")
            yield env.timeout(step.get(name, 0))
            if recorder is not None and (step.get(name, 0) or macs[n].get(name, 0)):
                recorder.record(agents[name], COMPUTE, env.now - step.get(name, 0), env.now, f"step {n}",
                                macs=macs[n].get(name, 0))
            finished[n][index].succeed()

    processes = [env.process(unit(i, u)) for i, u in enumerate(units)]
    end = run_until_done(env, env.all_of(processes), max_cycles, plan.layer.name)
    return BitSerialCounters(cycles=end, **tally.counts)
