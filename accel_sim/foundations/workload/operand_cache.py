"""Generated operand tensors shared between processes: a folder keyed by their spec hash.

Several studies of one ``reproduce all`` run read the same generated layers (the EIE studies
all read the nine benchmark layers; the SCNN and Cnvlutin studies the same pruned AlexNet,
GoogLeNet and VGG-16 layers), each in its own worker process, so the in-process cache of
:func:`accel_sim.foundations.workload.operands.layer_operands` cannot share them. Within
:func:`shared_operands`, the first process to generate a large tensor writes it to the folder
under its spec hash (:func:`accel_sim.foundations.workload.operands.spec_hash`: the tensor is a pure
function of that text) and every later one reads it back instead of generating it again. The
bits read are the bits written (sparse tensors as the flat positions and values of their
non-zero bit patterns, so a ``-0.0`` stays ``-0.0``), so results do not depend on the cache.

Values computed from such layers can go the same way (:func:`pickled_through_cache`: layer results of the
SCNN studies, :func:`accel_sim.pipeline.simulate.reused_layer_runs`). Outside the block (the default) nothing is
written anywhere. ``reproduce all`` uses a temporary folder removed when the run ends. Within :func:`reading_only`
a process reads what the folder holds but writes nothing there (a study whose tensors no other study reads:
writing them would only cost CPU).

Within a process, the tensors (and non-zeros) made or read are also kept in memory by their spec hash, up to
:data:`MEMO_BYTES` (the oldest go first): layers that differ only in what their tensors do not depend on (a
precision, a batch), or a study's later sweep over the same layers, get the same read-only arrays without
drawing or reading them again. :func:`forget` empties it (as a new process starts).
"""
from __future__ import annotations

import hashlib
import io
import os
import pickle
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

import numpy as np

from accel_sim.foundations.memo import ShapeMemo

T = TypeVar("T")

MIN_ELEMENTS = 1 << 18      # smaller tensors are generated in about a millisecond: not worth a file
SPARSE_BELOW = 1 / 2        # at most this fraction non-zero: stored as positions + values (8 bytes each)

MEMO_BYTES = 256 << 20      # generated tensors kept in a process (the nine EIE layers' non-zeros: 150 MB)

_folder: Path | None = None
_writing = True             # False within reading_only()
_made = ShapeMemo(capacity=None, max_bytes=MEMO_BYTES)   # the tensors kept in this process


@contextmanager
def shared_operands(folder: Path) -> Iterator[None]:
    """Within the block, generated tensors of at least :data:`MIN_ELEMENTS` go through ``folder``
    (which must exist); processes forked inside the block share it."""
    global _folder
    previous, _folder = _folder, Path(folder)
    try:
        yield
    finally:
        _folder = previous


@contextmanager
def reading_only() -> Iterator[None]:
    """Within the block, tensors the shared folder holds are read from it, but the tensors made are not written
    there (they stay in this process's memory)."""
    global _writing
    previous, _writing = _writing, False
    try:
        yield
    finally:
        _writing = previous


def forget() -> None:
    """Forget the tensors kept in this process (as a new process starts)."""
    _made.clear()


def through_cache(key: str, shape: tuple[int, ...], make: Callable[[], np.ndarray]) -> np.ndarray:
    """The tensor ``make()`` returns, read from the shared folder when a process wrote it there under
    ``key`` (its spec hash), else made and written there (outside :func:`shared_operands`: made)."""
    return _made.get(("tensor", key), lambda: _shared(key, shape, _read, make, _write))


def nonzeros_through_cache(key: str, shape: tuple[int, ...], make: Callable[[], tuple[np.ndarray, np.ndarray] | None]
                           ) -> tuple[np.ndarray, np.ndarray] | None:
    """The flat positions (ascending, int64) and values of the non-zeros (``!= 0``) of the tensor stored under
    ``key``, read from the shared folder without making the full-size tensor; else ``make()`` (or None when
    it returns None), written there as :func:`through_cache` would write the tensor they make (a consumer of
    the tensor reads it back). ``make`` must give no ``-0.0`` (it would be dropped here but kept there)."""
    def write(path: Path, found: tuple[np.ndarray, np.ndarray] | None) -> None:
        if found is None:
            return
        index, values = found
        size = int(np.prod(shape))
        if index.size <= SPARSE_BELOW * size:
            _save(path, {"shape": np.array(shape, dtype=np.int64), "index": _narrow(index, size), "values": values})
        else:
            array = np.zeros(shape, dtype=values.dtype)
            array.reshape(-1)[index] = values
            _write(path, array)

    return _made.get(("nonzeros", key), lambda: _shared(key, shape, _read_nonzeros, make, write))


def arrays_through_cache(key: str, make: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The named arrays ``make()`` returns, read from the shared folder when a process wrote them there under
    ``key``, else made and written there (outside :func:`shared_operands`: made). Any size: for arrays whose
    making costs more than their size says (the digits split: scikit-learn's import, ~1.4 CPU-s a process; a layer's
    ReLU(conv) non-zeros that Eyeriss' plan convolves, keyed by its operands' hashes and geometry)."""
    return _shared(key, None, _read_arrays, make, _save)


def pickled_through_cache(spec: object, make: Callable[[], T]) -> T:
    """``make()`` (a picklable value: a simulated layer's result), read from the shared folder when a process
    wrote it there for ``spec`` (what it is computed from, named by :func:`spec_digest`), else made and written
    there (outside :func:`shared_operands`: made). The value read equals the value written, field by field and
    type by type (pickle; read-only mappings stay so)."""
    if _folder is None:
        return make()
    return _shared(f"pickled-{spec_digest(spec)}", None, _read_pickle, make, _write_pickle)


def spec_digest(spec: object) -> str:
    """A file name for ``spec`` by content: the SHA-1 of its ``repr``, for specs whose ``repr`` shows every field
    (dataclasses of numbers, strings and tuples: an arch, a layer without payload arrays, whose ``repr`` numpy
    would shorten). Equal names, equal specs; a spec written in another order (a set) only misses the folder."""
    return hashlib.sha1(repr(spec).encode()).hexdigest()


class _Pickler(pickle.Pickler):
    """A pickler of read-only mappings (``MappingProxyType``, as a layer result's metrics), as such."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)

    def reducer_override(self, obj: object) -> object:
        if type(obj) is MappingProxyType:
            return _read_only, (dict(obj),)
        return NotImplemented


def _read_only(mapping: dict) -> MappingProxyType:
    return MappingProxyType(mapping)


def _read_pickle(path: Path) -> object:
    try:
        return pickle.loads(path.read_bytes())
    except pickle.UnpicklingError as error:   # (a file renamed into place whole: not expected)
        raise ValueError(f"{path}: {error}") from error


def _write_pickle(path: Path, value: object) -> None:
    """The pickle written under a name of this process, then renamed (as :func:`_save`)."""
    buffer = io.BytesIO()
    _Pickler(buffer).dump(value)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        partial.write_bytes(buffer.getvalue())
        os.rename(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)


def _read_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays :func:`_save` wrote under ``path`` (a folder of ``.npy`` files, one per name: read without the
    checksum pass a zip archive makes on every read and write)."""
    names = os.listdir(path)
    if not names:
        raise OSError(f"{path} holds no array")
    return {name[:-len(".npy")]: np.load(path / name, allow_pickle=False) for name in names}


def _shared(key: str, shape: tuple[int, ...] | None, read: Callable[[Path], T], make: Callable[[], T],
            write: Callable[[Path, T], None]) -> T:
    """``read`` of the file the shared folder holds under ``key``, else ``make()`` written there by ``write``;
    just ``make()`` outside :func:`shared_operands` or for a tensor ``shape`` below ``MIN_ELEMENTS`` (None: any
    size goes through the folder)."""
    if _folder is None or (shape is not None and int(np.prod(shape)) < MIN_ELEMENTS):
        return make()
    path = _folder / key
    try:
        return read(path)
    except (OSError, ValueError, KeyError, EOFError):   # not written yet, or unreadable: make it
        pass
    made = make()
    if _writing:
        write(path, made)
    return made


def _read_nonzeros(path: Path) -> tuple[np.ndarray, np.ndarray]:
    archive = _read_arrays(path)
    if "dense" in archive:
        flat = archive["dense"].reshape(-1)
        index = np.flatnonzero(flat)
        return index, flat[index]
    index, values = archive["index"].astype(np.int64), archive["values"]
    if np.any(values == 0):   # a -0.0 kept by the file's bit patterns is no non-zero
        keep = values != 0
        index, values = index[keep], values[keep]
    return index, values


def _narrow(index: np.ndarray, size: int) -> np.ndarray:
    """Positions as int32 when every position of a tensor of ``size`` entries fits 32 bits (every operand:
    MAX_OPERAND_ELEMENTS)."""
    return index.astype(np.int32) if size <= 1 << 31 else index


def _read(path: Path) -> np.ndarray:
    archive = _read_arrays(path)
    if "dense" in archive:
        return archive["dense"]
    array = np.zeros(tuple(archive["shape"]), dtype=archive["values"].dtype)
    array.reshape(-1)[archive["index"]] = archive["values"]
    return array


def _write(path: Path, array: np.ndarray) -> None:
    """Sparse (positions of the non-zero bit patterns, values) at most :data:`SPARSE_BELOW` full, else dense."""
    flat = np.ascontiguousarray(array).reshape(-1)
    bits = flat.view(np.uint32 if flat.dtype.itemsize == 4 else np.uint64)   # -0.0 kept
    if np.count_nonzero(bits) <= SPARSE_BELOW * flat.size:   # counted first: a dense tensor needs no positions
        index = np.flatnonzero(bits)
        _save(path, {"shape": np.array(array.shape, dtype=np.int64), "index": _narrow(index, flat.size),
                     "values": flat[index]})
    else:
        _save(path, {"dense": array})


def _save(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """One ``.npy`` file per array in a folder written under a name of this process, then renamed: a reader
    never sees half a folder (a rename onto a folder another process wrote first fails and is dropped). A
    failed write (disk full) only loses the sharing."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        partial.mkdir()
        for name, array in arrays.items():
            np.save(partial / f"{name}.npy", array, allow_pickle=False)
        os.rename(partial, path)
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
