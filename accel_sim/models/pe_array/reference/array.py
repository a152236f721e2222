"""The array controller: runs every tile of every group, one after the other.

Order: groups one after the other; in a group, filter tiles (``rows`` filters) outer, pixel
tiles (``cols`` output pixels) inner. For each tile the controller loads the columns' register
files, starts one weight feeder (dense reader, decompressor or index decoder) and one PE row
process per row, with a crossbar arbiter per window under ``reassignment``, and starts the next
tile when every one of them is done: the array waits for its slowest row.
"""
from __future__ import annotations

from typing import Iterator, NamedTuple

import simpy

from accel_sim.hardware import Fifo
from accel_sim.hardware.recorder import BARRIER
from accel_sim.models.pe_array.plan import GroupPlan, PEArrayPlan
from accel_sim.models.pe_array.reference.datapath import (ActivationRegisterFile, decoding_row, dense_row,
                                                    pixel_activations, row_agent)
from accel_sim.models.pe_array.reference.decoder import RowDecoder, decompressor, dense_reader
from accel_sim.models.pe_array.reference.reassignment import WindowCrossbar
from accel_sim.models.pe_array.reference.tally import Tally
from accel_sim.models.pe_array.spec import PEArraySpec


class Tile(NamedTuple):
    filter_tile: int        # index of the filter tile in the group
    pixel_tile: int         # index of the pixel tile in the group
    filters: range          # the group's filters on the rows (fewer than rows in the last filter tile)
    pixels: range           # the group's output pixels on the columns


def tiles(spec: PEArraySpec, work: GroupPlan) -> Iterator[Tile]:
    """A group's tiles in the order the array runs them."""
    for f, first_filter in enumerate(range(0, work.n, spec.rows)):
        for p, first_pixel in enumerate(range(0, work.m, spec.cols)):
            yield Tile(f, p, range(first_filter, min(first_filter + spec.rows, work.n)),
                       range(first_pixel, min(first_pixel + spec.cols, work.m)))


def _tile_agents(env: simpy.Environment, spec: PEArraySpec, work: GroupPlan, tile: Tile,
                 rf: ActivationRegisterFile, tally: Tally) -> list[simpy.Process]:
    columns = [work.weights[:, f] for f in tile.filters]
    if not spec.decodes:
        agents = []
        for row, column in enumerate(columns):
            register = Fifo(env, 1, f"row{row}")
            feed = dense_reader(env, spec, column, register) if spec.sparsity_support == "none" \
                else decompressor(env, spec, column, register, tally)
            agents += [env.process(feed),
                       env.process(dense_row(env, register, rf, spec.sparsity_support == "gating", tally, row))]
        return agents
    decoders = {row: RowDecoder(env, spec, columns[row] if row < len(columns) else None, f"row{row}", tally)
                for row in range(spec.rows)}   # rows without a filter have an empty stream
    crossbars = {}
    if spec.sparsity_support == "reassignment":
        for first in range(0, spec.rows, spec.reassign_window):
            window = {row: decoders[row] for row in range(first, first + spec.reassign_window)}
            crossbars.update(dict.fromkeys(window, WindowCrossbar(env, window, spec.reassign_policy)))
    rows = [env.process(decoding_row(env, row, decoder, crossbars.get(row), spec.vector_width, rf, tally))
            for row, decoder in decoders.items()]
    return rows + [decoder.process for decoder in decoders.values()]


def _record_tile_wait(env: simpy.Environment, spec: PEArraySpec, agents: list[simpy.Process], tally: Tally,
                      tile: str) -> None:
    """Each row done before the tile's slowest waits for it (the rows return the cycle they ended)."""
    rows = agents[1::2] if not spec.decodes else agents[:spec.rows]
    for row, process in enumerate(rows):
        if process.value is not None and process.value < env.now:
            tally.recorder.record(row_agent(row), BARRIER, process.value, env.now, f"wait for {tile}'s slowest row")


def array(env: simpy.Environment, plan: PEArrayPlan, tally: Tally):
    """The controller process; it ends when the layer's last tile is done."""
    spec = plan.spec
    for work in plan.groups:
        activations = pixel_activations(work)
        for tile in tiles(spec, work):
            tally.filter_tiles += tile.pixel_tile == 0
            tally.pixel_tiles += tile.filter_tile == 0
            rf = ActivationRegisterFile(activations[tile.pixels.start:tile.pixels.stop], tally)
            start = env.now
            agents = _tile_agents(env, spec, work, tile, rf, tally)
            yield env.all_of(agents)
            if tally.recorder is not None:
                _record_tile_wait(env, spec, agents, tally, f"tile f{tile.filter_tile} p{tile.pixel_tile}")
