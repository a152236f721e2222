"""Results kept for a process by a key that names everything they are computed from: :class:`ShapeMemo`
(a count or byte bound, the oldest go first). Used for layers that follow from their shape
(:mod:`accel_sim.pipeline.simulate`), a family's shape pieces, and generated operand tensors
(:mod:`accel_sim.foundations.workload.operand_cache`); it depends on nothing else of the package.
"""
from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Hashable
from typing import TypeVar

import numpy as np

T = TypeVar("T")


class ShapeMemo:
    """Values kept for the process by a key that names everything they are computed from. Its first use: results
    of layers that follow from the arch and the layer's shape alone (families with ``counts_from_shape``, and
    vector layers), so a layer run before under another name is not run again
    (:func:`accel_sim.pipeline.simulate.simulate_layer`): a transformer's 32 identical blocks, or a sweep over
    batch and context, run each shape once. Also a family's plan pieces, generated operands, simulated steps.

    Bounded: the oldest entries go first beyond :attr:`capacity` entries or :attr:`max_bytes` of arrays. Values
    are frozen (or read-only arrays), so one shared by two users cannot be changed by either."""

    def __init__(self, capacity: int | None = 4096, max_bytes: int | None = None) -> None:
        self.capacity = capacity    # 0: keep nothing (every layer runs); None: no bound on the count
        self.max_bytes = max_bytes  # None: no bound; else the oldest go while the kept arrays hold more (one stays)
        self._entries: dict[Hashable, object] = {}
        self._bytes: dict[Hashable, int] = {}
        self._lock = threading.Lock()   # threads of one process may simulate at once

    def get(self, key: Hashable, compute: Callable[[], T]) -> T:
        with self._lock:
            if key in self._entries:
                return self._entries[key]  # type: ignore[return-value]
        value = compute()
        size = 0 if self.max_bytes is None else array_bytes(value)
        with self._lock:
            if self.capacity is None or self.capacity > 0:
                if self.capacity is not None and len(self._entries) >= self.capacity:
                    self._drop_oldest()
                self._entries[key], self._bytes[key] = value, size
                while self.max_bytes is not None and len(self._entries) > 1 and \
                        sum(self._bytes.values()) > self.max_bytes:
                    self._drop_oldest()
        return value

    def _drop_oldest(self) -> None:
        oldest = next(iter(self._entries))
        del self._entries[oldest], self._bytes[oldest]

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes.clear()


def content_key(value: object) -> object:
    """A hashable key of ``value`` by content: arrays by type, shape and bytes, dataclasses field by field (each
    so), other values as they are. Equal keys, equal contents."""
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.shape, value.tobytes()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return tuple(content_key(getattr(value, f.name)) for f in dataclasses.fields(value))
    return value


def array_bytes(value: object) -> int:
    """Bytes of the numpy arrays ``value`` holds (itself, or inside tuples, lists and dataclasses)."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (tuple, list)):
        return sum(array_bytes(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return sum(array_bytes(getattr(value, f.name)) for f in dataclasses.fields(value))
    return 0
