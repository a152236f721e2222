"""Work distribution under ``reassignment``: the crossbar arbiter of one window of rows.

Rows are split into windows of ``reassign_window`` consecutive rows joined by a crossbar. A row
whose own stream is done asks the window's :class:`WindowCrossbar` for work. The arbiter waits
for the end of the cycle (:class:`~accel_sim.hardware.cycle_phase.EndOfCycle`: every row that
became free in this cycle has taken its own next chunk or asked by then), then serves the
requests in row order, one at a time: each gets the next chunk of the row with chunks left
chosen by ``reassign_policy`` (``in_order``: the lowest; ``longest_first``: the most chunks
left, ties to the lower row), taken from that row's decoder register, or ``None`` when no chunk
is left in the window. Between two grants it lets the cycle's other events run (the robbed
decoder refills its register).
"""
from __future__ import annotations

import simpy

from accel_sim.hardware.cycle_phase import EndOfCycle
from accel_sim.models.pe_array.reference.decoder import Chunk, RowDecoder


class WindowCrossbar:
    def __init__(self, env: simpy.Environment, decoders: dict[int, RowDecoder], policy: str):
        self.env = env
        self.decoders = decoders          # row -> its decoder, for the rows of the window
        self.policy = policy
        self.requests: list[tuple[int, simpy.Event]] = []
        self._arrival = env.event()
        env.process(self._arbitrate())

    def request(self, row: int) -> simpy.Event:
        """An event that fires with ``(victim row, chunk)`` or ``None``."""
        grant = self.env.event()
        self.requests.append((row, grant))
        if not self._arrival.triggered:
            self._arrival.succeed()
        return grant

    def _victim(self) -> int | None:
        left = {row: decoder.left for row, decoder in self.decoders.items() if decoder.left > 0}
        if not left:
            return None
        if self.policy == "longest_first":
            return max(left, key=lambda row: (left[row], -row))
        return min(left)

    def _arbitrate(self):
        while True:
            yield self._arrival
            self._arrival = self.env.event()
            yield EndOfCycle(self.env)
            while self.requests:
                self.requests.sort(key=lambda request: request[0])
                row, grant = self.requests.pop(0)
                victim = self._victim()
                if victim is None:
                    grant.succeed(None)
                    continue
                chunk = self.decoders[victim].take()
                assert isinstance(chunk, Chunk)
                grant.succeed((victim, chunk))
                yield EndOfCycle(self.env)
