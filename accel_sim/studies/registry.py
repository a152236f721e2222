"""Reproducible studies: ``accel-sim reproduce STUDY --out DIR``.

A study is a function from nothing to a :class:`StudyOutput` (a results table, one
figure, a README text saying how it was set up, and one :class:`Comparison` row per
published figure it reproduces). Studies register themselves with :func:`study`;
``reproduce all`` writes each into its own folder (``results.csv``, ``comparison.csv``,
``figure.png``, ``README.md``) and a gallery README that collects every comparison into one
table.
"""
from __future__ import annotations

import importlib
import multiprocessing
import pkgutil
import tempfile
import traceback
from contextlib import nullcontext
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

import math

import pandas as pd

from accel_sim.pipeline.plot import save_figure
from accel_sim.foundations.compiled import warm_up
from accel_sim.foundations.workload.operand_cache import reading_only, shared_operands

COMPARISON_COLUMNS = ("quantity", "unit", "published", "simulated", "relative_error", "tolerance", "source")


@dataclass(frozen=True)
class Comparison:
    """One published number next to the simulated one.

    ``published`` is None where the source states a trend but no number (the claim is then
    part of ``quantity``); ``tolerance`` is the bar on ``|relative_error|`` an issue set for
    this figure, None where none was set; with ``absolute`` it bars ``|simulated - published|``
    instead (for quantities such as a density, where a relative error means little).
    """

    quantity: str
    unit: str
    published: float | None
    simulated: float
    source: str
    tolerance: float | None = None
    absolute: bool = False

    @property
    def relative_error(self) -> float | None:
        """(simulated - published) / published; None without a published number (or at 0)."""
        if self.published is None or self.published == 0 or math.isnan(self.simulated):
            return None
        return (self.simulated - self.published) / self.published

    @property
    def within_tolerance(self) -> bool | None:
        if self.absolute:
            if self.tolerance is None or self.published is None or math.isnan(self.simulated):
                return None
            return abs(self.simulated - self.published) <= self.tolerance
        error = self.relative_error
        return None if self.tolerance is None or error is None else abs(error) <= self.tolerance


def comparison_frame(comparisons: tuple[Comparison, ...], study_name: str | None = None) -> pd.DataFrame:
    """The ``comparison.csv`` table (with a leading ``study`` column when ``study_name`` is given)."""
    rows = [{"quantity": c.quantity, "unit": c.unit, "published": c.published, "simulated": c.simulated,
             "relative_error": c.relative_error, "tolerance": c.tolerance, "source": c.source} for c in comparisons]
    frame = pd.DataFrame(rows, columns=list(COMPARISON_COLUMNS))
    if study_name is not None:
        frame.insert(0, "study", study_name)
    return frame


def _cell(value: float | None, percent: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if percent:
        return f"{100 * value:+.1f} %"
    return f"{value:.4g}"


def comparison_markdown(comparisons: tuple[Comparison, ...], studies: tuple[str, ...] | None = None) -> list[str]:
    """A markdown table of comparisons; with ``studies`` (one name per row) a leading study column links
    each row to its study's README."""
    lead = "| study " if studies else ""
    lines = [lead + "| quantity | unit | published | simulated | relative error | tolerance | source |",
             ("|---" if studies else "") + "|---|---|---|---|---|---|---|"]
    for i, c in enumerate(comparisons):
        bar = "" if c.tolerance is None else (f"{c.tolerance:g} absolute" if c.absolute else f"{100 * c.tolerance:.0f} %")
        tolerance = bar + ("" if c.tolerance is None else (
            "" if c.within_tolerance is None else (" (met)" if c.within_tolerance else " (NOT met)")))
        study_cell = f"| [{studies[i]}]({studies[i]}/README.md) " if studies else ""
        lines.append(f"{study_cell}| {c.quantity} | {c.unit} | {_cell(c.published)} | {_cell(c.simulated)} | "
                     f"{_cell(c.relative_error, percent=True)} | {tolerance} | {c.source} |")
    return lines


@dataclass(frozen=True)
class StudyOutput:
    results: pd.DataFrame
    figure: object   # a matplotlib Figure, made by accel_sim.pipeline.plot (registry never imports matplotlib)
    readme: str
    comparisons: tuple[Comparison, ...] = field(default_factory=tuple)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)   # more tables: written as <name>.csv


@dataclass(frozen=True)
class Study:
    name: str
    title: str
    run: Callable[[], StudyOutput]
    # CPU seconds one run took when last measured (`benchmarks/bench_reproduce_all.py`); only the order in
    # which `reproduce all` starts studies depends on it (longest first, so parallel workers finish together)
    cpu_s: float = 1.0
    # False: in `reproduce all` no other study reads the large operands this one generates (measured: bit-serial's
    # 0.5 GB, sparsity-ladder's 0.17 GB), so they are not written to the folder the studies share
    # (operand_cache.reading_only: it still reads what others wrote). Only speed depends on it: a later study
    # needing them would generate them again
    writes_operands: bool = True


_REGISTRY: dict[str, Study] = {}


def study(name: str, title: str, cpu_s: float = 1.0, writes_operands: bool = True
          ) -> Callable[[Callable[[], StudyOutput]], Callable[[], StudyOutput]]:
    """Decorator registering a study function under ``name`` (``cpu_s``, ``writes_operands``: see :class:`Study`)."""
    def register(fn: Callable[[], StudyOutput]) -> Callable[[], StudyOutput]:
        if name in _REGISTRY:
            raise ValueError(f"study {name!r} registered twice")
        _REGISTRY[name] = Study(name, title, fn, cpu_s, writes_operands)
        return fn
    return register


def all_studies() -> dict[str, Study]:
    """Every registered study, importing each module of this package once."""
    import accel_sim.studies as package
    for module in pkgutil.iter_modules(package.__path__):
        if module.name != "registry":
            importlib.import_module(f"{package.__name__}.{module.name}")
    return dict(sorted(_REGISTRY.items()))


def write_study(s: Study, out_dir: Path) -> StudyOutput:
    out_dir.mkdir(parents=True, exist_ok=True)
    with nullcontext() if s.writes_operands else reading_only():
        output = s.run()
    output.results.to_csv(out_dir / "results.csv", index=False)
    comparison_frame(output.comparisons).to_csv(out_dir / "comparison.csv", index=False)
    save_figure(output.figure, out_dir / "figure.png")
    for table_name, table in output.tables.items():
        table.to_csv(out_dir / f"{table_name}.csv", index=False)
    extra = "".join(f", `{table_name}.csv`" for table_name in output.tables)
    lines = [f"# {s.title}", "", output.readme.strip(), "",
             f"Files: `results.csv`, `comparison.csv` (published vs simulated), `figure.png`{extra}.", ""]
    if output.comparisons:
        lines += ["## Published vs simulated", ""] + comparison_markdown(output.comparisons) + [""]
    lines.append(f"Regenerate: `accel-sim reproduce {s.name} --out {out_dir}`")
    (out_dir / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return output


@dataclass(frozen=True)
class Gallery:
    """What ``reproduce all`` produced: each finished study's comparison rows, and the studies that
    failed (study -> error)."""

    comparisons: dict[str, tuple[Comparison, ...]]
    failures: dict[str, str]


def _write_or_record(name: str, out_dir: Path) -> tuple[tuple[Comparison, ...], str | None]:
    """Run one study into ``out_dir``: its comparison rows, or (on failure) its traceback written to
    ``out_dir/error.txt`` and a one-line error. Looks the study up by name, so a pool worker runs it too."""
    try:
        return write_study(all_studies()[name], out_dir).comparisons, None
    except Exception as error:  # noqa: BLE001 - reported, and the remaining studies still run
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "error.txt").write_text(traceback.format_exc(), encoding="utf-8")
        return (), f"{type(error).__name__}: {error}"


def _run_studies(order: list[str], out_dir: Path, jobs: int, on_study: Callable[[str], None],
                 on_done: Callable[[str], None]) -> dict[str, tuple[tuple[Comparison, ...], str | None]]:
    """Each study's outcome, ``jobs`` at a time. Workers are forked (they inherit the registry as this
    process has it) and each study writes only its own folder, so the files do not depend on ``jobs``.
    A study is submitted when a worker is free, so ``on_study`` marks when it really starts."""
    outcomes: dict[str, tuple[tuple[Comparison, ...], str | None]] = {}
    if jobs <= 1 or len(order) <= 1:
        for name in order:
            on_study(name)
            outcomes[name] = _write_or_record(name, out_dir / name)
            on_done(name)
        return outcomes
    warm_up()   # numba, once here rather than in each worker
    waiting = iter(order)
    pending: dict[Future, str] = {}
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(order)), mp_context=multiprocessing.get_context("fork"))

    def submit_next() -> None:
        name = next(waiting, None)
        if name is not None:
            on_study(name)
            pending[pool.submit(_write_or_record, name, out_dir / name)] = name
    try:
        for _ in range(min(jobs, len(order))):
            submit_next()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                name = pending.pop(future)
                outcomes[name] = future.result()
                on_done(name)
                submit_next()
    finally:
        pool.shutdown(wait=not pending, cancel_futures=True)
    return outcomes


def reproduce_all(out_dir: Path, names: tuple[str, ...] | None = None,
                  on_study: Callable[[str], None] | None = None, jobs: int = 1,
                  on_done: Callable[[str], None] | None = None) -> Gallery:
    """Run every study (or those in ``names``) into ``out_dir/<study>/`` and write the gallery
    ``out_dir/README.md``. ``jobs`` studies run at once in worker processes, the longest (by
    :attr:`Study.cpu_s`) first; the files written are the same for any ``jobs``. Large generated operands
    are shared between the studies through a temporary folder (:mod:`accel_sim.foundations.workload.operand_cache`). A study that fails
    does not stop the others: its traceback goes to ``out_dir/<study>/error.txt`` and the gallery
    lists it as failed. ``on_study`` / ``on_done`` are called with each study's name as it starts
    and as it ends (progress)."""
    chosen = {n: s for n, s in all_studies().items() if names is None or n in names}
    order = sorted(chosen, key=lambda n: -chosen[n].cpu_s)
    # studies reading the same generated layers (the EIE, SCNN, Cnvlutin studies) generate each once
    with tempfile.TemporaryDirectory(prefix="accel_sim_operands_") as folder, shared_operands(Path(folder)):
        outcomes = _run_studies(order, out_dir, jobs, on_study or (lambda name: None),
                                on_done or (lambda name: None))
    comparisons = {name: outcomes[name][0] for name in chosen if outcomes[name][1] is None}
    failures = {name: outcomes[name][1] for name in chosen if outcomes[name][1] is not None}
    lines = ["# Reports gallery", "", "Every registered study, regenerated by `accel-sim reproduce all --out "
             f"{out_dir}`.", ""]
    rows = [(name, c) for name, rows in comparisons.items() for c in rows]
    if rows:
        lines += ["## Published vs simulated, every study", "",
                  "One row per published figure a study reproduces (each study's `comparison.csv`; all of them "
                  "in `comparison.csv` here). Relative error = (simulated - published) / published.", ""]
        lines += comparison_markdown(tuple(c for _, c in rows), tuple(name for name, _ in rows)) + [""]
        pd.concat([comparison_frame(rows, n) for n, rows in comparisons.items()]).to_csv(
            out_dir / "comparison.csv", index=False)
    for name, s in chosen.items():
        if name in failures:
            lines += [f"## {s.title}: FAILED", "", f"`{failures[name]}` (traceback in `{name}/error.txt`)", ""]
            continue
        lines += [f"## [{s.title}]({name}/README.md)", "", f"![{name}]({name}/figure.png)", ""]
    (out_dir / "README.md").write_text("\n".join(lines), encoding="utf-8")
    return Gallery(comparisons, failures)
