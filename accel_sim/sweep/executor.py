"""Where points are computed: in-process, on a local process pool, or on a Dask cluster.

All three run the same function, :func:`evaluate_chunk`, on the same inputs: a
:class:`WorkerContext` (the workload and the arch file name, sent once per worker) and a
chunk of :class:`PointTask` (a point's fully resolved raw arch mapping). Each point is a
pure function of those, so the executor and the number of workers never change a result.

Executors yield finished chunks in completion order; the runner stores them by key.

- :class:`SerialExecutor` (``jobs=1``): in this process, one point per chunk.
- :class:`ProcessPoolBackend` (``jobs>1``): ``concurrent.futures`` on a ``forkserver``
  context (``spawn`` where there is none): workers fork from a clean, single-threaded
  server that has imported the simulator once, so no worker re-imports per point and
  forking is safe even if this process runs threads (a Dask client, a notebook kernel).
  The point function must therefore be importable (defined at module level). Each worker
  exits on its own if the process that started it dies (SIGKILL leaves no orphans).
- :class:`DaskBackend` (``scheduler`` given): ``distributed.Client`` on an existing
  scheduler; the context is scattered once to every worker. Workers need accel_sim
  installed. Connecting fails with an :class:`~accel_sim.errors.InputError` within
  :data:`CONNECT_TIMEOUT_S` seconds instead of hanging.
"""
from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Protocol

from accel_sim.arch.spec import ArchSpec
from accel_sim.config.schema import build
from accel_sim.errors import InputError
from accel_sim.sweep.store import PointOutcome
from accel_sim.workload.layer import Network

PointFunction = Callable[[ArchSpec, Network], Mapping[str, Any]]
CONNECT_TIMEOUT_S = 5.0          # a scheduler that does not answer within this is reported unreachable
WAIT_FOR_WORKERS_S = 30.0        # a scheduler with no worker after this is reported as such
ORPHAN_CHECK_S = 1.0             # how often a pool worker checks that its parent is alive
CHUNKS_PER_WORKER = 4            # auto chunking: at least this many chunks per worker (load balance)
MAX_AUTO_CHUNK = 4               # ... and at most this many points per chunk (commit granularity)


def simulate_point(arch: ArchSpec, network: Network) -> dict[str, float | int]:
    """The default point function: simulate, return the numeric columns of the network summary."""
    from accel_sim.simulate import simulate

    summary = simulate(arch, network).summary_frame().iloc[0]
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


def _plain(value: Any) -> float | int:
    """numpy scalars to Python numbers, so results serialise and compare exactly."""
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"a point function must return numbers, got {value!r}")
    return value


def evaluate_chunk(context: WorkerContext, chunk: Sequence[PointTask]) -> tuple[PointOutcome, ...]:
    """Validate each point's arch and run the point function on it (the only work a worker does)."""
    outcomes = []
    for task in chunk:
        start = time.perf_counter()
        try:
            arch = build(ArchSpec, task.raw_arch, context.arch_file)
            summary = {str(k): _plain(v) for k, v in context.evaluate(arch, context.network).items()}
        except Exception as err:
            raise PointFailed(f"point {task.index} ({task.key[:12]}): {type(err).__name__}: {err}") from err
        outcomes.append(PointOutcome(task.index, task.key, summary, time.perf_counter() - start, os.getpid()))
    return tuple(outcomes)


def make_chunks(tasks: Sequence[PointTask], workers: int, chunk_size: int | None) -> list[tuple[PointTask, ...]]:
    """Consecutive chunks; auto size is 1 for one worker, else enough chunks per worker to balance load."""
    if chunk_size is None:
        chunk_size = 1 if workers <= 1 else max(1, min(MAX_AUTO_CHUNK, len(tasks) // (workers * CHUNKS_PER_WORKER)))
    return [tuple(tasks[i:i + chunk_size]) for i in range(0, len(tasks), chunk_size)]


class Executor(Protocol):
    workers: int

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...

    def map_unordered(self, chunks: Iterable[tuple[PointTask, ...]]) -> Iterator[tuple[PointOutcome, ...]]: ...


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
            yield evaluate_chunk(self._context, chunk)


# --- local process pool --------------------------------------------------------------------

_WORKER_CONTEXT: WorkerContext | None = None


def _exit_when_orphaned(parent: int) -> None:
    while True:
        time.sleep(ORPHAN_CHECK_S)
        if os.getppid() != parent:
            os._exit(1)


def _init_worker(context: WorkerContext) -> None:
    global _WORKER_CONTEXT
    _WORKER_CONTEXT = context
    # the parent is the forkserver (which exits when the sweep process dies), or the sweep under spawn
    threading.Thread(target=_exit_when_orphaned, args=(os.getppid(),), daemon=True).start()


def _evaluate_in_worker(chunk: tuple[PointTask, ...]) -> tuple[PointOutcome, ...]:
    assert _WORKER_CONTEXT is not None, "pool worker was not initialised"
    return evaluate_chunk(_WORKER_CONTEXT, chunk)


def _pool_context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["accel_sim.sweep.executor", "accel_sim.simulate"])
        return ctx
    return multiprocessing.get_context("spawn")


class ProcessPoolBackend:
    """``jobs`` worker processes on this machine, each initialised once with the context."""

    def __init__(self, context: WorkerContext, jobs: int):
        self._context = context
        self.workers = jobs
        self._pool: ProcessPoolExecutor | None = None

    def __enter__(self) -> ProcessPoolBackend:
        self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=_pool_context(),
                                         initializer=_init_worker, initargs=(self._context,))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def map_unordered(self, chunks: Iterable[tuple[PointTask, ...]]) -> Iterator[tuple[PointOutcome, ...]]:
        assert self._pool is not None, "use the backend as a context manager"
        pending: set[Future] = {self._pool.submit(_evaluate_in_worker, chunk) for chunk in chunks}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()


# --- Dask distributed ----------------------------------------------------------------------

def _unreachable(address: str, err: BaseException) -> InputError:
    detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
    return InputError.single("--scheduler", address, f"no Dask scheduler answered within {CONNECT_TIMEOUT_S:g} s "
                             f"({detail}); check the address (tcp://host:port) and that the scheduler runs")


async def _identity(address: str) -> dict:
    from distributed.core import rpc

    scheduler = rpc(address)
    try:
        return await scheduler.identity()
    finally:
        await scheduler.close_rpc()


def _probe_scheduler(address: str) -> None:
    """Ask ``address`` who it is, under a hard deadline.

    ``distributed.Client`` alone can wait forever on a port that accepts connections but
    does not speak Dask (an HTTP server), and leaves a half-open client behind when it
    fails; a bounded ``identity`` call in a private event loop fails cleanly instead.
    """
    try:
        identity = asyncio.run(asyncio.wait_for(_identity(address), CONNECT_TIMEOUT_S))
    except ValueError as err:  # malformed address or unknown scheme
        raise InputError.single("--scheduler", address, f"not a scheduler address: {err}") from None
    except Exception as err:  # refused, timed out, or garbage from something that is not Dask
        raise _unreachable(address, err) from None
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
        try:
            from distributed import Client
        except ImportError:
            raise InputError.single("--scheduler", self._address, "Dask distributed is not installed; "
                                    "pip install 'accel_sim[dask]'") from None
        _probe_scheduler(self._address)
        try:
            self._client = Client(self._address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except (OSError, TimeoutError) as err:
            raise _unreachable(self._address, err) from None
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
        futures = [self._client.submit(evaluate_chunk, context, chunk, pure=False) for chunk in chunks]
        try:
            for future in as_completed(futures, loop=self._client.loop):
                yield future.result()
        finally:
            self._client.cancel(futures)


def make_executor(context: WorkerContext, jobs: int, scheduler: str | None) -> Executor:
    if scheduler is not None:
        return DaskBackend(context, scheduler)
    if jobs > 1:
        return ProcessPoolBackend(context, jobs)
    return SerialExecutor(context)
