"""An optional event recorder for the discrete-event references (the teaching traces).

A reference run given a :class:`Recorder` notes what each agent did and when: one
:class:`Event` per tile computed, DRAM burst, FIFO entry, broadcast, bank conflict, stall (with
its cause) or barrier wait, at the granularity the reference already has (never per MAC). Every
caller holds ``recorder: Recorder | None`` and tests ``if recorder is not None`` before
recording, so a run that records nothing pays one comparison per place it could record.

An event's ``start`` and ``end`` are cycles (``end`` exclusive, ``end >= start``); its amounts
(``macs`` issued, ``stall`` cycles, ``dram_bytes`` moved) are what it adds to the run's
counters, so the events of a run add up to its counters (the trace tests check it). ``source``
names the agent a value came from (a flow from ``source`` to ``agent``). ``offset`` shifts every
event recorded after it is set (a family running groups in separate environments one after the
other sets it to the cycles of the groups before).
"""
from __future__ import annotations

from dataclasses import dataclass

# what an agent is, for a viewer: one of these per agent (the trace's track kinds)
AGENT_KINDS = ("pe", "fifo", "buffer", "crossbar", "network", "dram", "control")

COMPUTE = "compute"          # a tile / slice / step of multiplier work (macs > 0, or an empty step)
STALL = "stall"              # an agent waiting: ``cause`` says for what (stall = cycles it adds to a counter)
DRAM = "dram"                # a DRAM burst (dram_bytes)
TRANSFER = "transfer"        # a value or entry moving between agents (FIFO entry, broadcast, scatter, fill)
CONFLICT = "bank conflict"   # cycles lost to items serialised on one bank
BARRIER = "barrier wait"     # an agent idle at a barrier until the slowest arrives
BUSY = "busy"                # other work taking cycles (a pipeline drain, a tree's latency, a readout)
WHATS = (COMPUTE, STALL, DRAM, TRANSFER, CONFLICT, BARRIER, BUSY)


@dataclass(frozen=True)
class Event:
    agent: str
    what: str
    start: int
    end: int
    label: str = ""
    macs: int = 0
    stall: int = 0
    dram_bytes: float = 0
    cause: str = ""
    source: str = ""


class Recorder:
    """Collects a run's events; ``agents`` maps each agent to its kind, in the order first declared."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.agents: dict[str, str] = {}
        self.offset = 0

    def agent(self, name: str, kind: str) -> str:
        """Declare agent ``name`` of ``kind`` (one of :data:`AGENT_KINDS`); returns the name."""
        if kind not in AGENT_KINDS:
            raise ValueError(f"agent {name!r}: unknown kind {kind!r}; known: {AGENT_KINDS}")
        self.agents.setdefault(name, kind)
        return name

    def record(self, agent: str, what: str, start: float, end: float, label: str = "", *, macs: int = 0,
               stall: int = 0, dram_bytes: float = 0, cause: str = "", source: str = "") -> None:
        if agent not in self.agents:
            raise ValueError(f"event {what!r} of undeclared agent {agent!r}")
        if what not in WHATS:
            raise ValueError(f"agent {agent!r}: unknown event {what!r}; known: {WHATS}")
        start, end = int(start) + self.offset, int(end) + self.offset
        if end < start:
            raise ValueError(f"agent {agent!r} {what!r}: end {end} before start {start}")
        self.events.append(Event(agent, what, start, end, label or what, int(macs), int(stall), dram_bytes,
                                 cause, source))

    def stall(self, agent: str, start: float, end: float, cause: str, cycles: int | None = None) -> None:
        """``agent`` waited from ``start`` to ``end`` for ``cause`` (``cycles``: what it adds to the
        stall counter, the duration unless given)."""
        self.record(agent, STALL, start, end, f"stall: {cause}", stall=int(end - start) if cycles is None else cycles,
                    cause=cause)

    @property
    def last_end(self) -> int:
        return max((e.end for e in self.events), default=0)

    def total(self, field: str) -> float:
        return sum(getattr(e, field) for e in self.events)
