"""What ``accel-sim run`` and ``reproduce all`` add around the Python API: progress on
stderr, and a model's refusal of a config (a ``ValueError`` from planning a layer, e.g. an
SRAM too small for the double buffer) reported as bad input naming the arch file and the layer."""
from __future__ import annotations

import time
from pathlib import Path
from typing import TextIO

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.run_result import RunResult
from accel_sim.pipeline.sweep.progress import LOG_INTERVAL_S, Progress, format_clock
from accel_sim.foundations.workload.layer import Network, NetworkLayer


def simulate_checked(arch: ArchSpec, network: Network, arch_source: str, reference: bool = False,
                     progress: TextIO | None = None, always_show: bool = False) -> RunResult:
    """:func:`accel_sim.pipeline.simulate.simulate` with a per-layer progress line (shown from the start
    with ``always_show``, else only once the run has taken :data:`LOG_INTERVAL_S`)."""
    from accel_sim.pipeline.simulate import simulate

    meter = Progress(f"{network.name} on {arch.name}", len(network.layers), 0, progress, unit="layers",
                     start_after_s=0.0 if always_show else LOG_INTERVAL_S)
    current: list[NetworkLayer] = []

    def on_layer(layer: NetworkLayer) -> None:
        if current:
            meter.advance()
        current[:] = [layer]

    try:
        run = simulate(arch, network, reference=reference, on_layer=on_layer)
    except MemoryError:
        where = f"layer {current[0].name}" if current else "layers"
        raise InputError.single(str(arch_source), where, "the simulation needs more memory than this machine "
                                "has; make the layer or the array smaller") from None
    except ValueError as err:
        if isinstance(err, InputError) or not current:
            raise
        raise InputError.single(str(arch_source), f"layer {current[0].name}", str(err)) from None
    meter.advance()
    meter.finish(only_if_shown=not always_show)
    return run


class StudyProgress:
    """One line per study of ``reproduce all`` on stderr: which study starts, how far, elapsed time."""

    def __init__(self, total: int, stream: TextIO | None):
        self.total, self.stream = total, stream
        self.started: list[str] = []
        self.finished: list[str] = []
        self._start = time.monotonic()

    def start(self, name: str) -> None:
        self.started.append(name)
        self._write(f"reproduce all: study {len(self.started)}/{self.total} {name} "
                    f"(elapsed {format_clock(time.monotonic() - self._start)})")

    def done(self, name: str) -> None:
        self.finished.append(name)

    def finish(self) -> None:
        self._write(f"reproduce all: {len(self.started)} studies in {format_clock(time.monotonic() - self._start)}")

    def saved_line(self, out: Path) -> str:
        done = self.finished
        return (f"{len(done)} studies finished in {out}/<study>/ ({', '.join(done) or 'none'}); the gallery "
                f"README was not written; run `accel-sim reproduce NAME --out {out}/NAME` for the others, or "
                "the same command again with --force")

    def _write(self, line: str) -> None:
        if self.stream is not None:
            self.stream.write(line + "\n")
            self.stream.flush()
