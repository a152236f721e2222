"""Index decoders and decompressors as SimPy processes, one per PE row.

Each reads its filter's compressed weight stream and walks it one *chunk* at a time (one
chunk per cycle of the format: ``csr_entries_per_cycle`` CSR entries, ``bitmap_bits_per_cycle``
presence bits, or ``nm_groups_per_cycle`` N:M groups of ``nm_n`` slots), in front of the row's
output register, a :class:`~accel_sim.hardware.Fifo` of one entry (the decoder presents one
chunk; the row takes it).

- :class:`RowDecoder` (skipping, reassignment): after ``decoder_latency`` cycles of pipeline
  fill at the start of each tile it presents the row's chunks, then an :class:`End` marker.
  It refills its register in the cycle a chunk is taken: the decode of the next chunk overlaps
  the row's first cycle on this one (so a row spends at least one cycle per chunk), and an
  idle row of the window may take a decoded chunk in the same cycle as its owner.
- :func:`decompressor` (memory, gating): expands the chunks into dense vectors of
  ``vector_width`` positions (zeros included) for the lockstep rows; the spec refuses a
  decompressor slower than the array, so it keeps the register full and has no latency.
- :func:`dense_reader` (none): the weight buffer streams the dense weights as vectors.
"""
from __future__ import annotations

from typing import Iterator, NamedTuple

import numpy as np
import simpy

from accel_sim.hardware import Fifo
from accel_sim.models.pe_array.reference.tally import Tally
from accel_sim.models.pe_array.spec import PEArraySpec


class Chunk(NamedTuple):
    items: int              # weights the row's MACs process (CSR entries, bitmap ones, N:M slots)
    nonzero: np.ndarray     # reduction positions of the chunk's non-zero weights
    real_slots: int         # items on real reduction positions (N:M: not on the padding past K)
    covered: int            # reduction positions the decoder moved past with this chunk


class Vector(NamedTuple):
    start: int              # dense positions [start, stop) for one cycle of a lockstep row
    stop: int
    nonzero: np.ndarray     # positions of the non-zero weights among them


class End(NamedTuple):
    trailing: int           # positions past the last chunk (CSR: the zeros after the last entry)


def _csr(spec: PEArraySpec, column: np.ndarray) -> Iterator[Chunk]:
    indices = np.flatnonzero(column)
    entries, end = spec.csr_entries_per_cycle, 0
    for i in range(0, len(indices), entries):
        taken = indices[i:i + entries]
        stop = int(taken[-1]) + 1
        yield Chunk(len(taken), taken, len(taken), stop - end)
        end = stop


def _bitmap(spec: PEArraySpec, column: np.ndarray) -> Iterator[Chunk]:
    width = spec.bitmap_bits_per_cycle
    for start in range(0, len(column), width):
        bits = column[start:start + width] != 0
        ones = start + np.flatnonzero(bits)
        yield Chunk(len(ones), ones, len(ones), len(bits))


def _nm(spec: PEArraySpec, column: np.ndarray) -> Iterator[Chunk]:
    m, n, k = spec.nm_m, spec.nm_n, len(column)
    span = spec.nm_groups_per_cycle * m
    for start in range(0, k, span):
        stop = min(start + span, k)
        groups = range(start, stop, m)
        real = sum(min(n, stop - g, m) for g in groups)
        yield Chunk(len(groups) * n, start + np.flatnonzero(column[start:stop]), real, stop - start)


WALKS = {"csr": _csr, "bitmap": _bitmap, "nm": _nm}


def walk(spec: PEArraySpec, column: np.ndarray) -> tuple[list[Chunk], int]:
    """A filter's chunks in stream order, and the positions left after the last one."""
    chunks = list(WALKS[spec.weight_format](spec, column))
    return chunks, len(column) - sum(c.covered for c in chunks)


class RowDecoder:
    """A decoding row's index decoder and its one-entry output register."""

    def __init__(self, env: simpy.Environment, spec: PEArraySpec, column: np.ndarray | None, name: str,
                 tally: Tally):
        self.env = env
        self.register = Fifo(env, 1, name)
        self.left = 0   # chunks not yet taken (known once the decoder has read the row's pointer)
        self.process = env.process(self._run(spec, column, tally))

    def _run(self, spec: PEArraySpec, column: np.ndarray | None, tally: Tally):
        if spec.decoder_latency:
            yield self.env.timeout(spec.decoder_latency)
        chunks, trailing = walk(spec, column) if column is not None else ([], 0)
        self.left = len(chunks)
        for chunk in chunks:
            tally.decoder_chunks += 1
            yield self.register.put(chunk)
        yield self.register.put(End(trailing))

    def take(self) -> Chunk | End:
        """Take the chunk in the register now (a crossbar grant: the register is never empty
        while chunks are left)."""
        taken = self.register.get()
        if not taken.triggered:
            raise RuntimeError(f"{self.register.name}: register empty with {self.left} chunks left")
        self.left -= isinstance(taken.value, Chunk)
        return taken.value


def decompressor(env: simpy.Environment, spec: PEArraySpec, column: np.ndarray, register: Fifo, tally: Tally):
    """Expand the compressed chunks into dense vectors of ``vector_width`` positions."""
    chunks, trailing = walk(spec, column)
    width, k = spec.vector_width, len(column)
    decoded = np.empty(0, dtype=np.int64)
    released = sent = 0
    for chunk in chunks + [None]:
        if chunk is None:
            released += trailing
        else:
            tally.decoder_chunks += 1
            released += chunk.covered
            decoded = np.concatenate([decoded, chunk.nonzero])
        while released - sent >= width or (chunk is None and sent < k):
            stop = min(sent + width, k)
            cut = int(np.searchsorted(decoded, stop))
            yield register.put(Vector(sent, stop, decoded[:cut]))
            decoded, sent = decoded[cut:], stop
    yield register.put(End(0))


def dense_reader(env: simpy.Environment, spec: PEArraySpec, column: np.ndarray, register: Fifo):
    """The dense weights, ``vector_width`` positions per entry, straight from the weight buffer."""
    for start in range(0, len(column), spec.vector_width):
        stop = min(start + spec.vector_width, len(column))
        yield register.put(Vector(start, stop, start + np.flatnonzero(column[start:stop])))
    yield register.put(End(0))
