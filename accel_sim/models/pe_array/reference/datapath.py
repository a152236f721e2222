"""PE datapath: the column register files of a tile and the PE rows, as SimPy processes.

A tile is ``rows`` filters x ``cols`` output pixels. At its start every PE column loads its
pixel's ``K`` activations from the input buffer into its register file
(:class:`ActivationRegisterFile`, which also knows, per position, how many of the tile's
pixels hold a non-zero activation). A PE row has ``vector_width`` multipliers per PE:

- :func:`dense_row` (none, memory, gating): takes one vector of ``vector_width`` dense
  positions from its register each cycle, in lockstep with the other rows (one register-file
  read per position, broadcast down the column, serves every row). ``none`` and ``memory``
  multiply everything; ``gating`` gates every MAC with a zero weight or activation.
- :func:`decoding_row` (skipping, reassignment): takes its own decoder's chunks one after
  another and spends ``max(1, ceil(items / vector_width))`` cycles on each (one at least: the
  chunk's decode cycle). Each row reads its activations at its own positions; MACs with a zero
  activation (N:M: also the stored zero slots) are gated, slots past the reduction are gated
  padding, positions the decoder moved past are skipped. Under reassignment a row whose own
  stream is done asks its window's crossbar for other rows' chunks
  (:mod:`.reassignment`); consecutive chunks from one row form one run of partial sums, sent
  back once per pixel.
"""
from __future__ import annotations

import math

import numpy as np
import simpy

from accel_sim.hardware import Fifo
from accel_sim.hardware.recorder import COMPUTE
from accel_sim.models.pe_array.plan import GroupPlan
from accel_sim.models.pe_array.reference.decoder import Chunk, End, RowDecoder
from accel_sim.models.pe_array.reference.reassignment import WindowCrossbar
from accel_sim.models.pe_array.reference.tally import Tally


def pixel_activations(work: GroupPlan) -> np.ndarray:
    """``(M, K)``: does output pixel ``(b, y, x)`` read a non-zero activation at position
    ``(c, r, s)``, i.e. input ``(b, c, y * stride_h + r, x * stride_w + s)`` of the padded input."""
    (kh, kw), (sh, sw), (oh, ow) = work.kernel, work.stride, work.out
    ys = (np.arange(oh) * sh)[:, None] + np.arange(kh)[None, :]      # (oh, kh) input rows
    xs = (np.arange(ow) * sw)[:, None] + np.arange(kw)[None, :]      # (ow, kw) input columns
    patches = work.input_nonzero[:, :, ys[:, None, :, None], xs[None, :, None, :]]   # (b, c, oh, ow, kh, kw)
    return patches.transpose(0, 2, 3, 1, 4, 5).reshape(-1, work.k)


class ActivationRegisterFile:
    """The register files of one tile's PE columns."""

    def __init__(self, activations: np.ndarray, tally: Tally):
        self.pixels, k = activations.shape
        self.nonzero = activations.sum(axis=0, dtype=np.int64)   # pixels with a non-zero activation per position
        self.tally = tally
        self.broadcast_until = 0
        tally.input_sram_read_words += k * self.pixels            # loaded from the input buffer

    def effectual(self, positions: np.ndarray) -> int:
        """MACs of the tile's pixels with non-zero weights at ``positions`` and a non-zero activation."""
        return int(self.nonzero[positions].sum())

    def broadcast(self, start: int, stop: int) -> None:
        """Lockstep rows: the first row to reach positions [start, stop) reads them for all."""
        if stop > self.broadcast_until:
            self.tally.activation_rf_reads += (stop - max(start, self.broadcast_until)) * self.pixels
            self.broadcast_until = stop

    def read(self, slots: int) -> None:
        self.tally.activation_rf_reads += slots * self.pixels


def row_agent(row: int) -> str:
    """The recorder's agent of PE row ``row``."""
    return f"row {row}"


def dense_row(env: simpy.Environment, register: Fifo, rf: ActivationRegisterFile, gating: bool, tally: Tally,
              row: int = 0):
    while True:
        waiting = env.now
        vector = yield register.get()
        if tally.recorder is not None and env.now > waiting:
            tally.recorder.stall(row_agent(row), waiting, env.now, "weights from the feeder", 0)
        if isinstance(vector, End):
            return env.now
        macs = (vector.stop - vector.start) * rf.pixels
        issued = rf.effectual(vector.nonzero) if gating else macs
        tally.macs_issued += issued
        tally.macs_gated += macs - issued
        rf.broadcast(vector.start, vector.stop)
        tally.row_busy_cycles += 1
        yield env.timeout(1)
        if tally.recorder is not None:
            tally.recorder.record(row_agent(row), COMPUTE, env.now - 1, env.now,
                                  f"weights {vector.start}-{vector.stop}", macs=issued)


def _compute(env: simpy.Environment, chunk: Chunk, vector_width: int, rf: ActivationRegisterFile, tally: Tally,
             row: int = 0, source: str = ""):
    issued = rf.effectual(chunk.nonzero)
    tally.macs_issued += issued
    tally.macs_gated += chunk.real_slots * rf.pixels - issued
    tally.nm_padding_slots += (chunk.items - chunk.real_slots) * rf.pixels
    tally.macs_skipped += (chunk.covered - chunk.real_slots) * rf.pixels
    rf.read(chunk.real_slots)
    cycles = max(1, math.ceil(chunk.items / vector_width))
    tally.row_busy_cycles += cycles
    yield env.timeout(cycles)
    if tally.recorder is not None:
        tally.recorder.record(row_agent(row), COMPUTE, env.now - cycles, env.now, f"chunk of {chunk.items}",
                              macs=issued, source=source)


def decoding_row(env: simpy.Environment, row: int, decoder: RowDecoder, crossbar: WindowCrossbar | None,
                 vector_width: int, rf: ActivationRegisterFile, tally: Tally):
    while True:   # own chunks first
        waiting = env.now
        item = yield decoder.register.get()
        if tally.recorder is not None and env.now > waiting:
            tally.recorder.stall(row_agent(row), waiting, env.now, "chunks from the index decoder", 0)
        if isinstance(item, End):
            tally.macs_skipped += item.trailing * rf.pixels
            break
        decoder.left -= 1
        yield from _compute(env, item, vector_width, rf, tally, row)
    if crossbar is None:
        return env.now
    holds = row   # whose partial sums the row's accumulators hold
    while True:
        grant = yield crossbar.request(row)
        if grant is None:
            return env.now
        victim, chunk = grant
        tally.crossbar_weights += chunk.items
        tally.macs_reassigned += chunk.items * rf.pixels
        if victim != holds:
            tally.crossbar_psums += rf.pixels
            holds = victim
        yield from _compute(env, chunk, vector_width, rf, tally, row, row_agent(victim))
