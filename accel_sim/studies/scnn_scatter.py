"""SCNN's scatter network: the shipped FIFOs in front of the accumulator banks (``arch_configs/scnn.yaml``:
``scatter: fifo``, depth 4; Kim, Park, Park 2022) against no buffering (a step's products for one bank
serialised), a deeper FIFO and the unbounded bound (``scnn.scatter``, ``scnn.scatter_fifo_depth``).

FIFO step loads are counted step by step (compiled loops, numba: about ``serialise``'s CPU plus ~0.5 s to
load numba; ~10 x on the numpy fallback), and the study keeps stated layer subsets, cheap on either
path: the first
:data:`~accel_sim.studies.scnn_networks.ABLATION_LAYERS` convolutions of each network and GoogLeNet's
inception 3a across densities.
"""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.plot.studies.scnn import scatter_sweep as scatter_figure
from accel_sim.pipeline.simulate import reused_layer_runs
from accel_sim.studies.template import readme
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.scnn_common import (NETWORK_SOURCE, PUBLISHED_DENSE_SPEEDUP, PUBLISHED_SOURCE, SWEEP_SOURCE, PUBLISHED_ENERGY_CROSSOVER,
                                           PUBLISHED_ENERGY_RATIO, PUBLISHED_NETWORK_SPEEDUP,
                                           PUBLISHED_PERF_CROSSOVER, PUBLISHED_SPEEDUP, SCATTER_ABLATION, SCATTER_SOURCE,
                                           conv_network, overrides_text, run_variants, with_density)
from accel_sim.studies.scnn_density_sweep import crossover, in_workers
from accel_sim.studies.scnn_networks import ABLATION_LAYERS, ablation_frame, ablation_markdown

NETWORKS = ("alexnet", "googlenet", "vgg16")
SCATTER_LAYERS = 6   # GoogLeNet's inception 3a: the density sweep's subset (minutes per whole network on the numpy path)
SCATTER_DENSITIES = (1.0, 0.9, 0.8, 0.7, 0.6)   # around the paper's crossover (0.85) and the shipped model's (~0.6)


def scatter_rows(layers: int | None, density: float,
                 variants: tuple[tuple[str, dict], ...] = SCATTER_ABLATION) -> list[dict]:
    """Rows of ``results.csv`` at one density (one worker's job): SCNN over DCNN on GoogLeNet's
    first ``layers`` inception convolutions, with the scatter network of ``arch_configs/scnn.yaml``
    (first row) and each FIFO variant."""
    settings = (("scatter: fifo, 4 products per bank (arch_configs/scnn.yaml)", {}),) + tuple(variants)
    dcnn, results = run_variants(with_density(conv_network("googlenet", layers), density), settings)
    rows = []
    for (label, overrides), result in zip(settings, results):
        rows.append({"choice": label, "overrides": overrides_text(overrides),
                     "density": density, "dcnn_cycles": int(dcnn.cycles.sum()),
                     "cycles": int(result.cycles.sum()),
                     "speedup": float(dcnn.cycles.sum() / result.cycles.sum()),
                     "energy_gain": float(dcnn.energy_pj.sum() / result.energy_pj.sum())})
    return rows


def scatter_crossovers(table: pd.DataFrame) -> dict[str, tuple[float | None, float | None]]:
    """Per choice: (performance, energy) crossover densities, as :func:`crossover` finds them."""
    out = {}
    for choice, part in table.groupby("choice", sort=False):
        frame = pd.concat([
            pd.DataFrame({"density": part.density, "design": "dcnn", "cycles": part.dcnn_cycles, "energy_pj": 1.0}),
            pd.DataFrame({"density": part.density, "design": "x", "cycles": part.cycles,
                          "energy_pj": 1.0 / part.energy_gain})])
        out[choice] = (crossover(frame, "x", "cycles"), crossover(frame, "x", "energy_pj"))
    return out


def scatter_sweep_markdown(table: pd.DataFrame) -> str:
    densities = sorted(table.density.unique(), reverse=True)
    crossings = scatter_crossovers(table)
    lines = ["| choice | " + " | ".join(f"speed-up at {d:g}" for d in densities)
             + " | perf crossover | energy crossover |", "|---" * (len(densities) + 3) + "|"]
    for choice, part in table.groupby("choice", sort=False):
        speedups = part.set_index("density").speedup
        perf, energy = (f"{x:.2f}" if x is not None else "none swept" for x in crossings[choice])
        lines.append(f"| {choice} | " + " | ".join(f"{speedups[d]:.2f}x" for d in densities)
                     + f" | {perf} | {energy} |")
    lines.append(f"| the paper (Sec. 6 / Fig. 9, whole GoogLeNet) | {PUBLISHED_DENSE_SPEEDUP}x at 1.0 |"
                 + " |" * (len(densities) - 1) + f" {PUBLISHED_PERF_CROSSOVER} | {PUBLISHED_ENERGY_CROSSOVER} |")
    return "\n".join(lines)


def scatter_markdown(table: pd.DataFrame, networks: tuple[str, ...]) -> str:
    """The scatter ablation next to the paper's per-network speed-ups and energy gain."""
    published = " | ".join(f"{PUBLISHED_NETWORK_SPEEDUP[n]:.2f}x" if n in PUBLISHED_NETWORK_SPEEDUP else "-"
                           for n in networks)
    return (ablation_markdown(table, networks)
            + f"\n| the paper (whole networks; Sec. 6 / abstract) | {published} | {PUBLISHED_SPEEDUP}x | "
            f"{PUBLISHED_ENERGY_RATIO}x |")


@study("scnn-scatter", "SCNN's scatter network: FIFOs in front of the accumulator banks (Kim et al. 2022) "
       "vs serialised products, next to the paper's speed-ups and crossover", cpu_s=10.0)   # numba; ~62 on the numpy fallback
def scnn_scatter(networks: tuple[str, ...] = NETWORKS, layers: int | None = ABLATION_LAYERS,
                 sweep_layers: int | None = SCATTER_LAYERS, densities: tuple[float, ...] = SCATTER_DENSITIES,
                 workers: int | None = None) -> StudyOutput:
    jobs = [(ablation_frame, (networks, layers, SCATTER_ABLATION))] + [
        (scatter_rows, (sweep_layers, d)) for d in densities]
    with reused_layer_runs(shared=True):   # in reproduce all: DCNN, the shipped FIFO and serialise on these layers
        parts = in_workers(jobs, workers)   # are scnn-networks' ablation's and scnn-density-sweep's runs, read back
    by_network = parts[0]
    sweep = pd.DataFrame([row for part in parts[1:] for row in part])
    fig = scatter_figure(sweep, PUBLISHED_DENSE_SPEEDUP, PUBLISHED_PERF_CROSSOVER)
    text = readme(__name__, scatter_source=SCATTER_SOURCE, layers=layers or "all", networks=scatter_markdown(
        by_network, networks), sweep_layers=sweep_layers or "all", sweep=scatter_sweep_markdown(sweep))
    return StudyOutput(sweep, fig, text, comparisons(by_network, sweep, networks, layers, sweep_layers),
                       {"networks": by_network})


def comparisons(by_network: pd.DataFrame, sweep: pd.DataFrame, networks: tuple[str, ...], layers: int | None,
                sweep_layers: int | None) -> tuple[Comparison, ...]:
    """The paper's figures next to each scatter choice (the first row of each table is the shipped
    ``fifo``, depth 4). No tolerance: the simulated side runs on the stated layer subsets, the paper's on whole
    networks (the issue's bars are rows of scnn-networks and scnn-density-sweep)."""
    rows = []
    subset = f"first {layers or 'all'} conv layers; the paper: whole network"
    for r in by_network.itertuples(index=False):
        rows += [Comparison(f"SCNN speed-up over DCNN, {n}, {r.choice} ({subset})", "x", PUBLISHED_NETWORK_SPEEDUP[n],
                            float(getattr(r, f"speedup_{n}")), NETWORK_SOURCE)
                 for n in networks if n in PUBLISHED_NETWORK_SPEEDUP]
        rows.append(Comparison(f"SCNN energy reduction over DCNN, mean of the networks, {r.choice} ({subset})", "x",
                               PUBLISHED_ENERGY_RATIO, float(r.mean_energy_gain), PUBLISHED_SOURCE))
    inception = f"GoogLeNet's first {sweep_layers or 'all'} inception convolutions; the paper: whole GoogLeNet"
    crossings = scatter_crossovers(sweep)
    for choice, part in sweep.groupby("choice", sort=False):
        dense = part[part.density == part.density.max()]
        perf = crossings[choice][0]
        rows += [Comparison(f"SCNN speed-up over DCNN at density {dense.density.iloc[0]:g}, {choice} ({inception})",
                            "x", PUBLISHED_DENSE_SPEEDUP if dense.density.iloc[0] == 1.0 else None,
                            float(dense.speedup.iloc[0]), SWEEP_SOURCE),
                 Comparison(f"density below which SCNN is faster than DCNN (NaN: not within the swept densities), "
                            f"{choice} ({inception})", "density", PUBLISHED_PERF_CROSSOVER,
                            perf if perf is not None else float("nan"), SWEEP_SOURCE, absolute=True)]
    return tuple(rows)
