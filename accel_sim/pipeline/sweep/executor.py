"""Where points are computed: in-process, on a local process pool, or on a Dask cluster.

All three run the same function, :func:`evaluate_chunk`, on the same inputs: a
:class:`WorkerContext` (the workload and the arch file name, sent once per worker) and a
chunk of :class:`PointTask` (a point's fully resolved raw arch mapping). Each point is a
pure function of those, so the executor and the number of workers never change a result.

Executors yield finished chunks in completion order; the runner stores them by key.

Chunks are drawn lazily from a :class:`Chunker`, a few per worker ahead, so their size can
follow the measured cost of a point.

Points of the simulator's own point function (:func:`simulate_point`) go through a chunk together:
:func:`~accel_sim.pipeline.simulate.simulate_many` runs every arch of the chunk layer by layer, so each
layer's operands are made once and the plan pieces the archs share (``Family.shares_work``) are computed
once (results equal to running each point alone, bit for bit). :data:`DEFAULT_BATCH` points at least go
in one chunk, fewer when that would leave a worker idle.

- :class:`SerialExecutor` (``jobs=1``): in this process, each point (or batch) handed back at once.
- :class:`ProcessPoolBackend` (``jobs>1``): ``concurrent.futures`` on a ``forkserver``
  context (``spawn`` where there is none): workers fork from a clean, single-threaded
  server that has imported the simulator once, so no worker re-imports per point and
  forking is safe even if this process runs threads (a Dask client, a notebook kernel).
  The point function must therefore be importable (defined at module level). Each worker
  exits on its own when the sweep process dies (a pipe only that process writes to reaches
  EOF), so a SIGKILL leaves no orphans.
- :class:`DaskBackend` (``scheduler`` given): ``distributed.Client`` on an existing
  scheduler; the context is scattered once to every worker. Workers need accel_sim
  installed. Connecting fails with an :class:`~accel_sim.foundations.errors.InputError` within
  :data:`CONNECT_TIMEOUT_S` seconds instead of hanging. Note: Dask's nanny starts workers
  with ``MALLOC_TRIM_THRESHOLD_=65536``, which slows the simulator ~1.8x (glibc returns
  memory to the OS on almost every free of a numpy temporary); set
  ``distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_: null`` in the cluster's
  Dask config.
"""
from __future__ import annotations

import asyncio
import multiprocessing
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Protocol
from urllib.parse import urlsplit

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.foundations.config.schema import build
from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.sweep.store import PointOutcome
from accel_sim.foundations.workload.layer import Network

PointFunction = Callable[[ArchSpec, Network], Mapping[str, Any]]
CONNECT_TIMEOUT_S = 5.0          # a scheduler that does not answer within this is reported unreachable
WAIT_FOR_WORKERS_S = 30.0        # a scheduler with no worker after this is reported as such
TARGET_CHUNK_S = 0.1             # auto chunking: about this much work per task (per-task overhead ~1 ms)
MAX_AUTO_CHUNK = 64              # ... and never more points than this in one task
IN_FLIGHT_PER_WORKER = 2         # tasks submitted ahead per worker: one running, one queued
DEFAULT_BATCH = 8                # simulate points: at least this many per chunk, run together (simulate_many)


def simulate_point(arch: ArchSpec, network: Network) -> dict[str, float | int]:
    """The default point function: simulate, return the numeric columns of the network summary."""
    from accel_sim.pipeline.simulate import simulate

    return _summary_numbers(simulate(arch, network))


def _summary_numbers(run: Any) -> dict[str, float | int]:
    summary = run.summary_frame().iloc[0]
    return {str(k): v for k, v in summary.items() if not isinstance(v, str)}


def evaluator_name(evaluate: PointFunction) -> str:
    return f"{getattr(evaluate, '__module__', '?')}:{getattr(evaluate, '__qualname__', repr(evaluate))}"


@dataclass(frozen=True)
class PointTask:
    index: int
    key: str
    raw_arch: dict      # the merged arch mapping with the point's overrides applied


@dataclass(frozen=True)
class WorkerContext:
    """What every worker needs once: the workload, where the arch came from, the point function."""

    arch_file: str
    network: Network
    evaluate: PointFunction


class PointFailed(RuntimeError):
    """A point's evaluation raised; carries the point index and the original error as text."""


class PointRefused(PointFailed):
    """A point the model refuses as bad input (a layer too large, a buffer too small): the sweep
    reports it as an input error naming the point, not as a crash."""

    def __init__(self, index: int, message: str):
        super().__init__(index, message)
        self.index, self.message = index, message


def _plain(value: Any) -> float | int:
    """numpy scalars to Python numbers, so results serialise and compare exactly."""
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"a point function must return numbers, got {value!r}")
    return value


def runs_together(context: WorkerContext, chunk: Sequence[PointTask]) -> bool:
    """Whether the chunk's points are simulated together (simulate points, more than one)."""
    return context.evaluate is simulate_point and len(chunk) > 1


def _evaluate_batch(context: WorkerContext, chunk: Sequence[PointTask]) -> tuple[PointOutcome, ...] | None:
    """The chunk's simulate points run together (:func:`~accel_sim.pipeline.simulate.simulate_many`), each
    point's time the batch's mean; ``None`` when any point fails, so the caller runs the points one by one
    and names the one that fails."""
    from accel_sim.pipeline.simulate import simulate_many

    start = time.perf_counter()
    try:
        archs = [build(ArchSpec, task.raw_arch, context.arch_file) for task in chunk]
        runs = simulate_many(archs, context.network)
    except Exception:
        return None
    each = (time.perf_counter() - start) / len(chunk)
    return tuple(PointOutcome(task.index, task.key, {k: _plain(v) for k, v in _summary_numbers(run).items()},
                              each, os.getpid()) for task, run in zip(chunk, runs))


def evaluate_chunk(context: WorkerContext, chunk: Sequence[PointTask]) -> tuple[PointOutcome, ...]:
    """Validate each point's arch and run the point function on it (the only work a worker does); simulate
    points of a chunk run together (:func:`_evaluate_batch`)."""
    if runs_together(context, chunk):
        batch = _evaluate_batch(context, chunk)
        if batch is not None:
            return batch
    outcomes = []
    for task in chunk:
        start = time.perf_counter()
        try:
            arch = build(ArchSpec, task.raw_arch, context.arch_file)
            summary = {str(k): _plain(v) for k, v in context.evaluate(arch, context.network).items()}
        except ValueError as err:
            # Bad input (an InputError), or the simulator's own refusal of this config (a ValueError
            # from planning, e.g. a buffer too small); any other evaluator's ValueError is a failure.
            if not isinstance(err, InputError) and context.evaluate is not simulate_point:
                raise PointFailed(f"point {task.index} ({task.key[:12]}): {type(err).__name__}: {err}") from err
            message = "; ".join(str(p) for p in err.problems) if isinstance(err, InputError) else str(err)
            raise PointRefused(task.index, message) from None
        except Exception as err:
            raise PointFailed(f"point {task.index} ({task.key[:12]}): {type(err).__name__}: {err}") from err
        outcomes.append(PointOutcome(task.index, task.key, summary, time.perf_counter() - start, os.getpid()))
    return tuple(outcomes)


class Chunker:
    """Consecutive chunks of ``tasks``, sized as the sweep runs.

    A task costs about a millisecond of overhead (pickling, queues, a commit), so a chunk
    should hold about :data:`TARGET_CHUNK_S` of work: points that take longer than that go
    one per task (committed the moment each finishes, so a killed run loses no finished
    point), cheap points go several per task (a killed run then discards at most one
    chunk of work per worker, about 0.1 s). The first chunk has one point; later sizes
    use the mean time of the points reported so far with :meth:`record`. A fixed
    ``chunk_size`` overrides this. ``batch``: the smallest automatic chunk (points run together, see
    :func:`evaluate_chunk`).
    """

    def __init__(self, tasks: Sequence[PointTask], chunk_size: int | None = None, batch: int = 1):
        self._tasks = tasks
        self._fixed = chunk_size
        self._batch = batch
        self._points = 0
        self._seconds = 0.0

    def record(self, outcomes: Sequence[PointOutcome]) -> None:
        self._points += len(outcomes)
        self._seconds += sum(o.elapsed_s for o in outcomes)

    def size(self) -> int:
        if self._fixed is not None:
            return self._fixed
        if not self._points or self._seconds <= 0:
            return self._batch
        return max(self._batch, min(MAX_AUTO_CHUNK, int(TARGET_CHUNK_S * self._points / self._seconds)))

    def __iter__(self) -> Iterator[tuple[PointTask, ...]]:
        start = 0
        while start < len(self._tasks):
            size = self.size()
            yield tuple(self._tasks[start:start + size])
            start += size


class Executor(Protocol):
    workers: int

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...

    def map_unordered(self, chunks: Iterable[tuple[PointTask, ...]]) -> Iterator[tuple[PointOutcome, ...]]:
        """Evaluate chunks, yielding each as it finishes; chunks are drawn lazily, a few per worker ahead."""


class SerialExecutor:
    """Points one after the other in this process."""

    workers = 1

    def __init__(self, context: WorkerContext):
        self._context = context

    def __enter__(self) -> SerialExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def map_unordered(self, chunks: Iterable[tuple[PointTask, ...]]) -> Iterator[tuple[PointOutcome, ...]]:
        for chunk in chunks:
            if runs_together(self._context, chunk):
                yield evaluate_chunk(self._context, chunk)   # a batch: its points share work
                continue
            for task in chunk:   # no task overhead to amortise here: hand back every point at once
                yield evaluate_chunk(self._context, (task,))


# --- local process pool --------------------------------------------------------------------

_WORKER_CONTEXT: WorkerContext | None = None


def _exit_when_orphaned(alive: Connection) -> None:
    """Block until the sweep process's end of the pipe closes (it died or shut the pool down), then exit."""
    try:
        alive.recv()
    except (EOFError, OSError):
        pass
    os._exit(1)


def _init_worker(context: WorkerContext, alive: Connection) -> None:
    global _WORKER_CONTEXT
    _WORKER_CONTEXT = context
    threading.Thread(target=_exit_when_orphaned, args=(alive,), daemon=True).start()


def _evaluate_in_worker(chunk: tuple[PointTask, ...]) -> tuple[PointOutcome, ...]:
    assert _WORKER_CONTEXT is not None, "pool worker was not initialised"
    return evaluate_chunk(_WORKER_CONTEXT, chunk)


def _pool_context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["accel_sim.pipeline.sweep.executor", "accel_sim.pipeline.simulate"])
        return ctx
    return multiprocessing.get_context("spawn")


class ProcessPoolBackend:
    """``jobs`` worker processes on this machine, each initialised once with the context."""

    def __init__(self, context: WorkerContext, jobs: int):
        self._context = context
        self.workers = jobs
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> ProcessPoolBackend:
        ctx = _pool_context()
        # Only this process holds the write end: if it dies (even by SIGKILL) every worker reads
        # EOF and exits. Workers blocked on the task queue would otherwise live on, and keep the
        # forkserver alive with them.
        alive_r, self._alive_w = ctx.Pipe(duplex=False)
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx,
                                         initializer=_init_worker, initargs=(self._context, alive_r))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._alive_w.close()

    def map_unordered(self, chunks: Iterable[tuple[PointTask, ...]]) -> Iterator[tuple[PointOutcome, ...]]:
        assert self._pool is not None, "use the backend as a context manager"
        source = iter(chunks)
        pending: set[Future] = set()

        def refill() -> None:
            while len(pending) < self.workers * IN_FLIGHT_PER_WORKER:
                chunk = next(source, None)
                if chunk is None:
                    return
                pending.add(self._pool.submit(_evaluate_in_worker, chunk))

        refill()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                pending.discard(future)
                yield future.result()
            refill()


# --- Dask distributed ----------------------------------------------------------------------

def _unreachable(address: str, reason: str) -> InputError:
    return InputError.single("--scheduler", address, f"cannot reach a Dask scheduler ({reason}); check the "
                             "address (tcp://host:port) and that the scheduler is running")


def _check_tcp(address: str, deadline: float) -> None:
    """Open and close a TCP connection: a refused port fails at once, a dead host by the deadline."""
    split = urlsplit(address if "://" in address else f"tcp://{address}")
    if split.scheme not in ("tcp", "tls"):
        return
    try:
        host, port = split.hostname, split.port
    except ValueError as err:
        raise InputError.single("--scheduler", address, f"not a scheduler address: {err}") from None
    if not host or port is None:
        raise InputError.single("--scheduler", address, "not a scheduler address: expected tcp://host:port")
    try:
        with socket.create_connection((host, port), timeout=max(0.1, deadline - time.monotonic())):
            pass
    except TimeoutError:
        raise _unreachable(address, f"no answer within {CONNECT_TIMEOUT_S:g} s") from None
    except OSError as err:
        raise _unreachable(address, err.strerror or str(err)) from None


async def _identity(address: str) -> dict:
    from distributed.core import rpc

    scheduler = rpc(address)
    try:
        return await scheduler.identity()
    finally:
        await scheduler.close_rpc()


def _probe_scheduler(address: str, deadline: float) -> None:
    """Check that a Dask scheduler answers at ``address``, all within :data:`CONNECT_TIMEOUT_S`.

    ``distributed.Client`` alone retries a refused port until its timeout, can wait forever
    on a port that accepts connections but does not speak Dask (an HTTP server), and leaves
    a half-open client behind when it fails. So: a plain TCP connect first (no Dask import
    needed to report a refused port, see :func:`_check_tcp`), then a bounded ``identity``
    call in a private event loop; the Client is only created once the scheduler has answered.
    """
    try:
        identity = asyncio.run(asyncio.wait_for(_identity(address), max(1.0, deadline - time.monotonic())))
    except ValueError as err:  # malformed address or unknown scheme
        raise InputError.single("--scheduler", address, f"not a scheduler address: {err}") from None
    except TimeoutError:
        raise _unreachable(address, f"no Dask handshake within {CONNECT_TIMEOUT_S:g} s") from None
    except Exception as err:  # refused, reset, or garbage from something that is not Dask
        raise _unreachable(address, f"{type(err).__name__}: {err}") from None
    if not isinstance(identity, dict) or identity.get("type") != "Scheduler":
        raise InputError.single("--scheduler", address, f"this is not a Dask scheduler (it says {identity!r:.80})")


class DaskBackend:
    """Chunks as tasks on an existing Dask scheduler; the context is scattered to every worker once."""

    def __init__(self, context: WorkerContext, address: str):
        self._context = context
        self._address = address
        self._client: Any = None
        self.workers = 1

    def __enter__(self) -> DaskBackend:
        deadline = time.monotonic() + CONNECT_TIMEOUT_S
        _check_tcp(self._address, deadline)  # a refused port is reported before the slow Dask import
        try:
            from distributed import Client
        except ImportError:
            raise InputError.single("--scheduler", self._address, "Dask distributed is not installed; "
                                    "pip install 'accel_sim[dask]'") from None
        _probe_scheduler(self._address, deadline)
        try:
            self._client = Client(self._address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except (OSError, TimeoutError) as err:
            raise _unreachable(self._address, f"{type(err).__name__}: {err}") from None
        try:
            self._client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS_S)
        except (OSError, TimeoutError) as err:
            self._client.close()
            raise InputError.single("--scheduler", self._address, f"the scheduler has no workers after "
                                    f"{WAIT_FOR_WORKERS_S:g} s ({err})") from None
        workers = self._client.scheduler_info(n_workers=-1)["workers"].values()
        self.workers = max(1, sum(w.get("nthreads", 1) for w in workers))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._client is not None:
            self._client.close()

    def map_unordered(self, chunks: Iterable[tuple[PointTask, ...]]) -> Iterator[tuple[PointOutcome, ...]]:
        from distributed import as_completed

        context = self._client.scatter(self._context, broadcast=True, hash=False)
        source = iter(chunks)
        futures = []
        completed = as_completed(loop=self._client.loop)

        def submit_next() -> None:
            chunk = next(source, None)
            if chunk is not None:
                futures.append(self._client.submit(evaluate_chunk, context, chunk, pure=False))
                completed.add(futures[-1])

        for _ in range(self.workers * IN_FLIGHT_PER_WORKER):
            submit_next()
        try:
            for future in completed:
                yield future.result()
                submit_next()
        finally:
            self._client.cancel(futures)


def make_executor(context: WorkerContext, jobs: int, scheduler: str | None) -> Executor:
    if scheduler is not None:
        return DaskBackend(context, scheduler)
    if jobs > 1:
        return ProcessPoolBackend(context, jobs)
    return SerialExecutor(context)
