"""Speed-up and energy vs density: synthetic GoogLeNet with weight and activation density scaled
together from 1.0 to 0.1, on DCNN, DCNN-opt, SCNN-SparseA, SCNN-SparseW and SCNN (the paper's Fig. 9)."""
from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

import pandas as pd

from accel_sim.plot.studies.scnn import density_sweep
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.scnn_common import (DESIGN_LABELS, PUBLISHED_DENSE_SPEEDUP, PUBLISHED_ENERGY_CROSSOVER,
                                           PUBLISHED_PERF_CROSSOVER, SWEEP_SOURCE, conv_network, run_designs,
                                           with_density)

DESIGNS = ("dcnn", "dcnn_opt", "scnn_sparse_a", "scnn_sparse_w", "scnn")
DENSITIES = tuple(round(1.0 - 0.1 * i, 1) for i in range(10))


def density_rows(density: float, designs: tuple[str, ...], max_layers: int | None) -> list[dict]:
    """Network totals of every design at one density (one worker's job)."""
    per_layer = run_designs(with_density(conv_network("googlenet", max_layers), density), designs)
    totals = per_layer.groupby("design", sort=False)[["cycles", "energy_pj"]].sum()
    return [{"density": density, "design": d, "cycles": int(totals.loc[d, "cycles"]),
             "energy_pj": float(totals.loc[d, "energy_pj"])} for d in designs]


def sweep_frame(densities: tuple[float, ...], designs: tuple[str, ...], max_layers: int | None,
                workers: int = 1) -> pd.DataFrame:
    """Densities run in ``workers`` processes (results identical to a serial run: each point is
    computed the same way from seeded operands)."""
    if workers > 1 and len(densities) > 1:
        with ProcessPoolExecutor(max_workers=min(workers, len(densities))) as pool:
            parts = list(pool.map(density_rows, densities, [designs] * len(densities),
                                  [max_layers] * len(densities)))
    else:
        parts = [density_rows(d, designs, max_layers) for d in densities]
    rows = [row for part in parts for row in part]
    return pd.DataFrame(rows, columns=["density", "design", "cycles", "energy_pj"])


def crossover(frame: pd.DataFrame, design: str, column: str) -> float | None:
    """Density below which ``design`` beats DCNN on ``column``: from the highest swept density down, the
    first interval where DCNN / design crosses 1, interpolated linearly in that ratio; the highest swept
    density if ``design`` already wins there; None if it never wins."""
    pivot = frame.pivot(index="density", columns="design", values=column).sort_index(ascending=False)
    gain = (pivot["dcnn"] / pivot[design]).astype(float)
    densities, gains = gain.index.tolist(), gain.tolist()
    if gains[0] > 1:
        return float(densities[0])
    for (d_hi, g_hi), (d_lo, g_lo) in zip(zip(densities, gains), zip(densities[1:], gains[1:])):
        if g_lo > 1 >= g_hi:
            return float(d_hi + (1 - g_hi) * (d_lo - d_hi) / (g_lo - g_hi))
    return None


@study("scnn-density-sweep", "SCNN, its sparse-A / sparse-W variants and DCNN(-opt) vs density (synthetic GoogLeNet)")
def scnn_density_sweep(densities: tuple[float, ...] = DENSITIES, designs: tuple[str, ...] = DESIGNS,
                       max_layers: int | None = None, workers: int | None = None) -> StudyOutput:
    frame = sweep_frame(densities, designs, max_layers, workers if workers is not None else (os.cpu_count() or 1))
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
        comparisons.append(Comparison(f"SCNN speed-up over DCNN at density {dense:g}", "x",
                                      PUBLISHED_DENSE_SPEEDUP if dense == 1.0 else None,
                                      float(pivot_c.loc[dense, "dcnn"] / pivot_c.loc[dense, "scnn"]), SWEEP_SOURCE))
    readme = (
        "GoogLeNet's 54 inception convolutions (shapes of `workloads/scnn_googlenet.yaml`) with every layer's "
        "weight and input-activation density set to the same value, 1.0 down to 0.1, on the five designs of the "
        "paper's Table 6 (`arch_configs/dcnn.yaml`, `dcnn_opt.yaml`, `scnn_sparse_a.yaml`, `scnn_sparse_w.yaml`, "
        "`scnn.yaml`). `results.csv`: network totals per (density, design). Left: speed-up over DCNN; right: "
        "energy relative to DCNN. DCNN-opt has DCNN's cycles by construction (gating and DRAM compression only "
        "save energy). SCNN runs `arch_configs/scnn.yaml`, the paper's stated choices and named assumptions "
        "(see the scnn-networks README and its ablation table). The crossover densities are interpolated "
        "linearly in the speed-up (energy gain) between the two swept densities around 1; the published ones "
        "are the paper's (Sec. 6, Fig. 9: faster than DCNN below ~0.85, less energy below ~0.83, 79 % of "
        "DCNN's performance at density 1.0). The SCNN curves include same-bank serialisation of products within "
        "a step (see the scnn-networks README), which lowers SCNN's speed most at high density.")
    return StudyOutput(frame, fig, readme, tuple(comparisons))
