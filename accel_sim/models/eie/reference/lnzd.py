"""The leading-non-zero detection (LNZD) tree and its root, the broadcaster.

Brief: groups of 4 PEs find the next non-zero among their activations, a quadtree of LNZD
nodes selects one and the root broadcasts (a_j, j) to every PE's activation FIFO; only non-zero
activations are broadcast, in index order, one per cycle, and the broadcast stalls while any
FIFO is full. The tree's pipeline (``lnzd_latency``: levels x cycles per level) delays the
first broadcast of a vector; the leaves read every activation once.

One process per layer: for each input vector it opens the vector (tells the PEs how many
activations it will broadcast), waits for the tree, sends each non-zero activation through the
:class:`~accel_sim.hardware.broadcast.Broadcast` bus (waiting for a free slot in every FIFO),
and waits at the vector barrier until every PE has drained the vector.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import simpy

from accel_sim.hardware.barrier import Barrier
from accel_sim.hardware.broadcast import Broadcast


@dataclass(frozen=True)
class ActivationEntry:
    """One FIFO entry: broadcast ``broadcast`` of a vector, activation code ``code`` of column ``column``."""

    broadcast: int
    column: int
    code: int


@dataclass(frozen=True)
class BroadcastLog:
    broadcast: int
    column: int
    code: int
    cycle: int      # relative to the vector's start


class LnzdRoot:
    def __init__(self, env: simpy.Environment, activations: np.ndarray, latency: int, bus: Broadcast,
                 vector_end: Barrier, record: bool):
        self.env = env
        self.activations = activations
        self.latency = latency
        self.bus = bus
        self.vector_end = vector_end
        self.record = record
        self.vector_open = [env.event() for _ in range(activations.shape[0])]  # value: the vector's broadcasts
        self.vector_starts: list[int] = []
        self.logs: list[list[BroadcastLog]] = []
        self.activation_reads = 0    # activations read by the leaves

    def run(self, after: simpy.Event):
        yield after
        for vector, values in enumerate(self.activations):
            start = int(self.env.now)
            self.vector_starts.append(start)
            self.activation_reads += values.size
            columns = np.flatnonzero(values)
            self.vector_open[vector].succeed(columns.size)
            log: list[BroadcastLog] = []
            if self.latency:
                yield self.env.timeout(self.latency)
            for t, column in enumerate(columns):
                code = int(values[column])
                yield self.bus.put(ActivationEntry(t, int(column), code))
                cycle = int(self.env.now)
                if self.record:
                    log.append(BroadcastLog(t, int(column), code, cycle - start))
                yield self.env.timeout(1)          # the root sends at most one entry per cycle
            self.logs.append(log)
            yield self.vector_end.put()
