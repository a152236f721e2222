"""Speed-up and energy vs density: synthetic GoogLeNet with weight and activation density scaled
together from 1.0 to 0.1, on DCNN, DCNN-opt, SCNN-SparseA, SCNN-SparseW and SCNN (the paper's Fig. 9)."""
from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import pandas as pd

from accel_sim.pipeline.plot.studies.scnn import density_sweep
from accel_sim.studies.template import readme
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.scnn_energy import (breakdown, breakdown_markdown, buffered_dense_energy, component_totals,
                                           implied_per_product_scale, per_product_energy)
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import reused_layer_runs
from accel_sim.studies.scnn_common import (DENSE_DIAGNOSTIC, DENSE_DIAGNOSTIC_LAYERS, DESIGN_CONFIGS, DESIGN_LABELS,
                                           ENERGY_NOTES_SOURCE, PUBLISHED_DENSE_ENERGY, PUBLISHED_DENSE_SPEEDUP,
                                           PUBLISHED_ENERGY_CROSSOVER, PUBLISHED_OPT_ENERGY_CROSSOVER,
                                           PUBLISHED_PERF_CROSSOVER, SWEEP_SOURCE,
                                           conv_network, overrides_text, run_variants, run_designs, with_density)

DESIGNS = ("dcnn", "dcnn_opt", "scnn_sparse_a", "scnn_sparse_w", "scnn")
DENSITIES = tuple(round(1.0 - 0.1 * i, 1) for i in range(10))
DIAGNOSTIC_DENSITIES = (1.0, 0.5)   # the dense end of the sweep, and a sparse point


def density_rows(density: float, designs: tuple[str, ...], max_layers: int | None) -> list[dict]:
    """Network totals of every design at one density (one worker's job): cycles, energy and its components
    (:func:`~accel_sim.studies.scnn_energy.component_totals`)."""
    per_layer = run_designs(with_density(conv_network("googlenet", max_layers), density), designs)
    cycles = per_layer.groupby("design", sort=False).cycles.sum()
    energy = component_totals(per_layer)
    return [{"density": density, "design": d, "cycles": int(cycles[d]), "energy_pj": float(energy.loc[d, "energy_pj"]),
             **{c: float(energy.loc[d, c]) for c in energy.columns if c != "energy_pj"}} for d in designs]


def default_workers() -> int:
    """Processes a study's jobs run in when the caller does not say: every core, but one (this process) inside
    a worker process of ``reproduce --jobs`` or a sweep, whose siblings already keep the cores busy (more
    processes there only add each one's start-up: numba's loaded loops, imports, operands the siblings made)."""
    return 1 if multiprocessing.parent_process() is not None else (os.cpu_count() or 1)


def in_workers(jobs: list[tuple[Callable, tuple]], workers: int | None = None) -> list:
    """``fn(*args)`` of every job, in ``workers`` processes (None: :func:`default_workers`; results identical
    to a serial run: each job is computed the same way from seeded operands), in the jobs' order."""
    workers = default_workers() if workers is None else workers
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=min(workers, len(jobs))) as pool:
            futures = [pool.submit(fn, *args) for fn, args in jobs]
            return [future.result() for future in futures]
    return [fn(*args) for fn, args in jobs]


def sweep_jobs(densities: tuple[float, ...], designs: tuple[str, ...], max_layers: int | None) -> list:
    return [(density_rows, (d, designs, max_layers)) for d in densities]


def sweep_point(density: float, designs: tuple[str, ...], max_layers: int | None,
                diagnostic_layers: int | None) -> tuple[list[dict], list[dict] | None]:
    """One worker's job: :func:`density_rows`, and with ``diagnostic_layers`` the :func:`diagnostic_rows` of that
    density too, in one :func:`~accel_sim.pipeline.simulate.reused_layer_runs` block: the diagnostic's DCNN and
    paper setting run the sweep's first layers again."""
    with reused_layer_runs(shared=True):
        rows = density_rows(density, designs, max_layers)
        return rows, None if diagnostic_layers is None else diagnostic_rows(diagnostic_layers, density)


def sweep_table(parts: list[list[dict]]) -> pd.DataFrame:
    return pd.DataFrame([row for part in parts for row in part], columns=["density", "design", "cycles", "energy_pj"])


def dense_energy(parts: list[list[dict]]) -> tuple[float, pd.DataFrame]:
    """The densest swept point and every design's energy components there (rows: design)."""
    densest = max(parts, key=lambda part: part[0]["density"])
    return densest[0]["density"], pd.DataFrame(densest).drop(columns=["density", "cycles"]).set_index("design")


def sweep_frame(densities: tuple[float, ...], designs: tuple[str, ...], max_layers: int | None,
                workers: int = 1) -> pd.DataFrame:
    """Densities run in ``workers`` processes (:func:`in_workers`)."""
    return sweep_table(in_workers(sweep_jobs(densities, designs, max_layers), workers))


def crossover(frame: pd.DataFrame, design: str, column: str, baseline: str = "dcnn") -> float | None:
    """Density below which ``design`` beats ``baseline`` on ``column``: from the highest swept density down,
    the first interval where baseline / design crosses 1, interpolated linearly in that ratio; the highest
    swept density if ``design`` already wins there; None if it never wins."""
    pivot = frame.pivot(index="density", columns="design", values=column).sort_index(ascending=False)
    gain = (pivot[baseline] / pivot[design]).astype(float)
    densities, gains = gain.index.tolist(), gain.tolist()
    if gains[0] > 1:
        return float(densities[0])
    for (d_hi, g_hi), (d_lo, g_lo) in zip(zip(densities, gains), zip(densities[1:], gains[1:])):
        if g_lo > 1 >= g_hi:
            return float(d_hi + (1 - g_hi) * (d_lo - d_hi) / (g_lo - g_hi))
    return None


def diagnostic_rows(layers: int | None, density: float,
                    variants: tuple[tuple[str, dict], ...] = DENSE_DIAGNOSTIC) -> list[dict]:
    """Rows of ``dense_diagnostic.csv`` at one density (one worker's job; the table: density after density).
    On GoogLeNet's first ``layers`` inception convolutions at ``density`` (weights and activations):
    SCNN's speed-up over DCNN, its PE busy cycles (steps + bank-conflict cycles) per step, overall and per
    kernel size, and the bank-conflict share of the busy cycles, for the paper setting and the vector-order /
    bank-hash alternatives (a diagnostic, never shipped); ``dcnn_utilization``: DCNN's dense MACs over its
    multiplier-cycles."""
    dcnn_arch = load_arch(DESIGN_CONFIGS["dcnn"])
    multipliers = dcnn_arch.scnn.pes * dcnn_arch.scnn.multipliers_per_pe
    rows = []
    network = with_density(conv_network("googlenet", layers), density)
    kernels = [f"{layer.kernel_h}x{layer.kernel_w}" for layer in network.layers]
    dcnn_frame, results = run_variants(network, variants)
    dcnn = dcnn_frame.cycles.sum()
    for (label, overrides), result in zip(variants, results):
        busy = result.steps + result.bank_conflict_cycles
        row = {"choice": label, "overrides": overrides_text(overrides),
               "density": density, "speedup": float(dcnn / result.cycles.sum()),
               "busy_cycles_per_step": float(busy.sum() / result.steps.sum()),
               "conflict_share": float(result.bank_conflict_cycles.sum() / busy.sum()),
               "dcnn_utilization": float(dcnn_frame.macs_dense.sum() / (dcnn * multipliers))}
        for kernel in sorted(set(kernels)):   # per kernel size: PE busy cycles per step
            mine = [k == kernel for k in kernels]
            row[f"busy_cycles_per_step_{kernel}"] = float(busy[mine].sum() / result.steps[mine].sum())
        rows.append(row)
    return rows


def dense_energy_text(table: pd.DataFrame, totals: pd.DataFrame, density: float, dcnn_buffered: float) -> str:
    """README section: the energy breakdown at the densest point and the per-product scale the paper's
    dense-point energy implies (``totals``: component totals per design there; ``dcnn_buffered``: DCNN's energy
    there with ``dense_partial_sums: buffer``)."""
    dcnn, scnn = float(totals.loc["dcnn", "energy_pj"]), float(totals.loc["scnn", "energy_pj"])
    head = {"density": f"{density:g}", "scnn_over_dcnn": f"{scnn / dcnn:.2f}", "breakdown": breakdown_markdown(table)}
    if density != 1.0:
        return readme("scnn_density_sweep_energy", **head)
    scale = implied_per_product_scale([(dcnn, scnn, per_product_energy(totals))], 1 / PUBLISHED_DENSE_ENERGY)
    dram = table[table.component == "dram"].iloc[0]
    return readme("scnn_density_sweep_dense_energy", **head, published=f"{PUBLISHED_DENSE_ENERGY:.2f}",
                  scale=f"{scale:.2f} of the table's" if scale is not None else
                  "less than nothing (so they are not the whole gap here)",
                  dram_ratio=f"{dram.scnn_pj / dram.dcnn_pj:.2f}", buffered_ratio=f"{scnn / dcnn_buffered:.2f}")


def dense_diagnostic_markdown(table: pd.DataFrame) -> str:
    lines = ["| choice | density | speed-up over DCNN | PE busy cycles per step | bank-conflict share |",
             "|---|---|---|---|---|"]
    lines += [f"| {r.choice} | {r.density:g} | {r.speedup:.2f}x | {r.busy_cycles_per_step:.2f} | "
              f"{100 * r.conflict_share:.0f} % |" for r in table.itertuples(index=False)]
    return "\n".join(lines)


def diagnostic_text(table: pd.DataFrame, layers: int) -> str:
    """README section on ``dense_diagnostic.csv``: why SCNN is slow at density 1.0 (``layers``: the inception
    convolutions the diagnostic runs)."""
    dense_rows = table[table.density == 1.0]
    paper = dense_rows.iloc[0]
    near = ", ".join(f"{r.choice} ({r.speedup:.2f}x)" for r in dense_rows.itertuples(index=False)
                     if abs(r.speedup / PUBLISHED_DENSE_SPEEDUP - 1) <= 0.20) or "none"
    sparse = table[table.density != 1.0]
    busy_by_kernel = ", ".join(f"{c.removeprefix('busy_cycles_per_step_')} {paper[c]:.2f}" for c in table.columns
                               if c.startswith("busy_cycles_per_step_"))
    return readme("scnn_density_sweep_diagnostic", layers=layers, busy_by_kernel=busy_by_kernel,
                  conflict_percent=f"{100 * paper.conflict_share:.0f}", paper_speedup=f"{paper.speedup:.2f}",
                  busy_per_step=f"{paper.busy_cycles_per_step:.2f}", published_dense_speedup=PUBLISHED_DENSE_SPEEDUP,
                  needed_utilization=f"{100 / (PUBLISHED_DENSE_SPEEDUP * paper.busy_cycles_per_step):.0f}",
                  dcnn_utilization=f"{100 * paper.dcnn_utilization:.0f}", near=near,
                  sparse_conflicts=", ".join(f"{100 * r.conflict_share:.0f} %" for r in sparse.itertuples(index=False)),
                  table=dense_diagnostic_markdown(table))


@study("scnn-density-sweep", "SCNN, its sparse-A / sparse-W variants and DCNN(-opt) vs density (synthetic GoogLeNet)", cpu_s=19.7)
def scnn_density_sweep(densities: tuple[float, ...] = DENSITIES, designs: tuple[str, ...] = DESIGNS,
                       max_layers: int | None = None, workers: int | None = None,
                       diagnostic: bool = True) -> StudyOutput:
    # the sweep's densities and the diagnostic's in one set of worker processes
    layers = min(filter(None, (max_layers, DENSE_DIAGNOSTIC_LAYERS)))
    diagnose = diagnostic and "scnn" in designs
    alone = [d for d in DIAGNOSTIC_DENSITIES if diagnose and d not in densities]   # diagnosed, not swept
    jobs = [(sweep_point, (d, designs, max_layers, layers if diagnose and d in DIAGNOSTIC_DENSITIES else None))
            for d in densities] + [(diagnostic_rows, (layers, d)) for d in alone]
    energy = {"dcnn", "scnn"} <= set(designs)   # DCNN with its partial sums buffered at the densest point, made
    buffered = buffered_dense_energy(with_density(conv_network("googlenet", max_layers), max(densities)),  # before
                                     ("dcnn",)) if energy else None   # the workers: they inherit its imports, operands
    done = in_workers(jobs, workers)
    parts = [rows for rows, _ in done[:len(densities)]]
    diagnosed = {**{d: rows for d, (_, rows) in zip(densities, done) if rows is not None},
                 **dict(zip(alone, done[len(densities):]))}
    diagnostic_parts = [diagnosed[d] for d in DIAGNOSTIC_DENSITIES] if diagnose else []
    frame = sweep_table(parts)
    pivot_c = frame.pivot(index="density", columns="design", values="cycles")
    pivot_e = frame.pivot(index="density", columns="design", values="energy_pj")
    fig = density_sweep(pivot_c, pivot_e, designs, DESIGN_LABELS)
    comparisons = []
    if "scnn" in designs and "dcnn" in designs:
        cycles_x, energy_x = crossover(frame, "scnn", "cycles"), crossover(frame, "scnn", "energy_pj")
        never = float("nan")
        comparisons += [
            Comparison("density below which SCNN is faster than DCNN (interpolated between swept densities; "
                       "NaN: never)", "density", PUBLISHED_PERF_CROSSOVER,
                       cycles_x if cycles_x is not None else never, SWEEP_SOURCE, tolerance=0.1, absolute=True),
            Comparison("density below which SCNN uses less energy than DCNN (interpolated; NaN: never)", "density",
                       PUBLISHED_ENERGY_CROSSOVER, energy_x if energy_x is not None else never, SWEEP_SOURCE)]
        dense = pivot_c.index.max()
        comparisons.append(Comparison(f"SCNN energy relative to DCNN at density {dense:g}", "x",
                                      PUBLISHED_DENSE_ENERGY if dense == 1.0 else None,
                                      float(pivot_e.loc[dense, "scnn"] / pivot_e.loc[dense, "dcnn"]),
                                      ENERGY_NOTES_SOURCE))
        if "dcnn_opt" in designs:
            opt_x = crossover(frame, "scnn", "energy_pj", "dcnn_opt")
            comparisons.append(Comparison("density below which SCNN uses less energy than DCNN-opt (interpolated; "
                                          "NaN: never)", "density", PUBLISHED_OPT_ENERGY_CROSSOVER,
                                          opt_x if opt_x is not None else never, ENERGY_NOTES_SOURCE))
        comparisons.append(Comparison(f"SCNN speed-up over DCNN at density {dense:g}", "x",   # last: scnn-scatter's
                                      PUBLISHED_DENSE_SPEEDUP if dense == 1.0 else None,       # tests read it there
                                      float(pivot_c.loc[dense, "dcnn"] / pivot_c.loc[dense, "scnn"]), SWEEP_SOURCE))
    text = readme(__name__)
    tables = {}
    if energy:
        density, totals = dense_energy(parts)
        tables["energy_breakdown"] = table = pd.DataFrame(breakdown(totals, f"density {density:g}"))
        text += "\n" + dense_energy_text(table, totals, density, buffered["dcnn"])
    if diagnose:
        tables["dense_diagnostic"] = table = pd.DataFrame([row for part in diagnostic_parts for row in part])
        text += "\n" + diagnostic_text(table, layers)
    return StudyOutput(frame, fig, text, tuple(comparisons), tables)
