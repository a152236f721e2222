"""The durable result store of a sweep: one SQLite file, one transaction per finished point.

Why SQLite and not DuckDB: it is in the standard library (no dependency), and in WAL mode
a committed transaction survives the writing process being killed (SIGKILL, OOM) at any
moment; an interrupted transaction is rolled back on the next open, so the file is never
half-written. Points are committed one by one as they arrive, by the one process that
runs the sweep, so there is a single writer and no lock contention.

Tables:

- ``meta(name, value)``: sweep name, source file, workload hash, code version, axes,
  metrics, evaluator (JSON values);
- ``points(idx, key, labels, overrides, axis_values)``: the current sweep definition,
  rewritten at the start of every run (a point whose key is already in ``results`` is
  not recomputed, even if the sweep file changed);
- ``results(key, summary, run_id, pid, elapsed_s, finished_at)``: one row per computed
  config. ``key`` (SHA-256 of resolved arch, workload hash and code version) is the
  primary key, so a config is stored exactly once; ``run_id`` and ``pid`` record which
  run, and which worker process, computed it;
- ``runs(run_id, pid, started_at, executor, planned, computed, finished_at)``: one row per
  run; ``planned`` is how many configs it had to compute, ``finished_at`` stays empty if
  the run was killed.

``synchronous=NORMAL`` with WAL keeps every commit across a process crash; only an OS
crash or power loss can lose the last few commits (never corrupt the file).
"""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not POSIX
    fcntl = None

import pandas as pd

from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.sweep.metrics import add_metrics
from accel_sim.pipeline.sweep.spec import Sweep

STORE_NAME = "results.sqlite"
LOCK_NAME = "results.lock"
CSV_NAME = "results.csv"
PARQUET_NAME = "results.parquet"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS points (
    idx INTEGER PRIMARY KEY, key TEXT NOT NULL, labels TEXT NOT NULL,
    overrides TEXT NOT NULL, axis_values TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    key TEXT PRIMARY KEY, summary TEXT NOT NULL, run_id TEXT NOT NULL, pid INTEGER NOT NULL,
    elapsed_s REAL NOT NULL, finished_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, started_at REAL NOT NULL, executor TEXT NOT NULL,
    planned INTEGER NOT NULL, computed INTEGER, finished_at REAL);
"""


@dataclass(frozen=True)
class PointOutcome:
    """What a worker sends back for one point: its key and the numeric summary of the run."""

    index: int
    key: str
    summary: dict[str, float | int]
    elapsed_s: float
    pid: int            # the worker process that computed it


def _dumps(value: Any) -> str:
    """JSON that round-trips floats exactly (repr) and keeps key order (the model's column order)."""
    return json.dumps(value, separators=(",", ":"), default=str)


def store_path(path: str | Path) -> Path:
    """The store file of a sweep output folder (or the file itself)."""
    path = Path(path)
    return path / STORE_NAME if path.is_dir() or path.suffix != ".sqlite" else path


class ResultStore:
    """An open result store. Use as a context manager; every method commits what it writes."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def meta(self) -> dict[str, Any]:
        return {name: json.loads(value) for name, value in self._db.execute("SELECT name, value FROM meta")}

    def write_definition(self, sweep: Sweep, evaluator: str) -> None:
        """Record the sweep's points and metadata (replacing the previous definition) in one transaction."""
        stored_meta = self.meta()
        if stored_meta.get("schema_version", SCHEMA_VERSION) != SCHEMA_VERSION:
            raise InputError.single(str(self.path), "", f"store format {stored_meta['schema_version']}, this "
                                    f"version reads format {SCHEMA_VERSION}; use another output folder")
        previous = stored_meta.get("evaluator")
        if previous is not None and previous != evaluator:
            raise InputError.single(str(self.path), "", f"this store holds results of evaluator {previous}, "
                                    f"not {evaluator}; use another output folder")
        meta = {"schema_version": SCHEMA_VERSION, "name": sweep.name, "description": sweep.description,
                "source": sweep.source, "arch_file": str(sweep.arch_file), "workload": sweep.network.name,
                "workload_hash": sweep.workload_digest, "code_version": sweep.code_version,
                "axes": list(sweep.axes), "linked_axes": {name: list(labels) for name, labels in sweep.linked_axes},
                "varied_paths": list(sweep.varied_paths), "metrics": list(sweep.metrics), "evaluator": evaluator}
        rows = [(p.index, p.key, _dumps(p.labels), _dumps(p.overrides), _dumps(p.values)) for p in sweep.points]
        with self._transaction():
            self._db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                 [(k, _dumps(v)) for k, v in meta.items()])
            self._db.execute("DELETE FROM points")
            self._db.executemany("INSERT INTO points VALUES (?, ?, ?, ?, ?)", rows)

    def stored_keys(self) -> set[str]:
        return {key for (key,) in self._db.execute("SELECT key FROM results")}

    def put(self, outcome: PointOutcome, run_id: str) -> bool:
        """Commit one finished point; False if its key was already stored (the first result is kept)."""
        with self._transaction():
            cursor = self._db.execute("INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?, ?)",
                                      (outcome.key, _dumps(outcome.summary), run_id, outcome.pid,
                                       outcome.elapsed_s, time.time()))
        return cursor.rowcount == 1

    def start_run(self, run_id: str, executor: str, planned: int) -> None:
        with self._transaction():
            self._db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, NULL, NULL)",
                             (run_id, os.getpid(), time.time(), executor, planned))

    def finish_run(self, run_id: str, computed: int) -> None:
        with self._transaction():
            self._db.execute("UPDATE runs SET computed = ?, finished_at = ? WHERE run_id = ?",
                             (computed, time.time(), run_id))

    def runs(self) -> pd.DataFrame:
        """One row per run of this sweep, oldest first (``finished_at`` is NaN for a killed run)."""
        return pd.read_sql_query("SELECT * FROM runs ORDER BY started_at", self._db)

    def frame(self, provenance: bool = False) -> pd.DataFrame:
        """One row per finished point of the current definition, in point order (see :func:`load_results`)."""
        meta = self.meta()
        query = ("SELECT p.idx, p.key, p.labels, p.axis_values, r.summary, r.run_id, r.pid, r.elapsed_s "
                 "FROM points p JOIN results r ON p.key = r.key ORDER BY p.idx")
        linked = meta.get("linked_axes", {})
        rows = []
        for idx, key, labels, values, summary, run_id, pid, elapsed in self._db.execute(query):
            row: dict[str, Any] = {"point": idx}
            row.update({name: label for name, label in json.loads(labels) if name in linked})
            row.update(dict(json.loads(values)))
            row.update(json.loads(summary))
            row["key"] = key
            if provenance:
                row.update(run_id=run_id, pid=pid, elapsed_s=elapsed)
            rows.append(row)
        frame = add_metrics(pd.DataFrame(rows), meta.get("metrics", []))
        for name, labels in linked.items():   # linked-axis labels sort in axis order, not alphabetically
            if name in frame.columns:
                frame[name] = pd.Categorical(frame[name], categories=labels, ordered=True)
        if "key" in frame.columns:  # derived metrics before the key and provenance columns
            tail = ["key"] + (["run_id", "pid", "elapsed_s"] if provenance else [])
            frame = frame[[c for c in frame.columns if c not in tail] + tail]
        frame.attrs.update(name=meta.get("name"), axes=list(meta.get("axes", [])),
                           metrics=list(meta.get("metrics", [])), workload=meta.get("workload"))
        return frame

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, rolled back if the block raises."""

    def __init__(self, db: sqlite3.Connection):
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self._db.execute("ROLLBACK" if exc_type is not None else "COMMIT")


@contextlib.contextmanager
def exclusive_run(out_dir: Path) -> Iterator[None]:
    """Hold ``out_dir/results.lock`` for one run: a second run on the same store fails at once.

    An advisory ``flock``: the kernel drops it when the holder dies, even by SIGKILL, so a
    killed run never leaves a stale lock. (Without ``fcntl``, e.g. on Windows, no check.)
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    with open(out_dir / LOCK_NAME, "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            raise InputError.single(str(out_dir), "", f"another sweep run (pid {lock.read().strip() or '?'}) is "
                                    "writing to this folder; wait for it or use another --out") from None
        lock.seek(0)
        lock.truncate()
        lock.write(str(os.getpid()))
        lock.flush()
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def load_results(path: str | Path, provenance: bool = False) -> pd.DataFrame:
    """The results of a sweep as a DataFrame, one row per finished point, in point order.

    ``path`` is the sweep's output folder or its ``results.sqlite``. Columns: ``point``,
    the label of each linked axis, the resolved value of every varied arch path (base
    units), the model's summary columns, the derived metrics, ``key``; with
    ``provenance`` also ``run_id``, ``pid`` and ``elapsed_s`` (which run computed the
    point, and how long it took). Linked-axis labels are an ordered categorical in the
    axis's order. ``frame.attrs["axes"]`` lists the axis columns.
    """
    file = store_path(path)
    if not file.is_file():
        raise InputError.single(str(file), "", "no sweep result store here (expected results.sqlite)")
    with ResultStore(file) as store:
        return store.frame(provenance)


def stored_count(path: str | Path) -> int:
    """How many configs the store of a sweep folder holds (0 if there is none yet)."""
    file = store_path(path)
    if not file.is_file():
        return 0
    with contextlib.closing(sqlite3.connect(f"file:{file}?mode=ro", uri=True, timeout=5)) as db:
        try:
            return int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])
        except sqlite3.Error:
            return 0


def export_results(frame: pd.DataFrame, out_dir: Path) -> dict[str, Path]:
    """Write ``results.csv`` (and ``results.parquet`` if pyarrow is installed), atomically."""
    paths = {"csv": out_dir / CSV_NAME}
    tmp = paths["csv"].with_name(CSV_NAME + ".tmp")
    frame.to_csv(tmp, index=False)
    os.replace(tmp, paths["csv"])
    if importlib.util.find_spec("pyarrow") is not None:
        paths["parquet"] = out_dir / PARQUET_NAME
        tmp = paths["parquet"].with_name(PARQUET_NAME + ".tmp")
        frame.to_parquet(tmp, index=False)
        os.replace(tmp, paths["parquet"])
    return paths
