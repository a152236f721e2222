"""SCNN with DNNsim's rules (``arch_configs/scnn_dnnsim.yaml``) against DNNsim's own cycles.

DNNsim (isakedo/DNNsim commit 4748a60) is an independent C++ cycle-level simulator with an SCNN
model; its per-layer cycles on five layers' exact tensors (tests/data/dnnsim_scnn, from
/work/shared/validation/dnnsim_scnn) are the published side. Every DNNsim rule is a named choice
of the ``scnn:`` section; the arch sets them all at DNNsim's parameters.
"""
from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.plot.studies.scnn_dnnsim import cycles_per_layer
from accel_sim.pipeline.simulate import simulate
from accel_sim.studies.template import readme
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.foundations.workload.layer import Network
from accel_sim.foundations.workload.loader import load_workload

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "dnnsim_scnn"
SOURCE = "DNNsim (isakedo/DNNsim 4748a60) SCNN model, tests/data/dnnsim_scnn/dnnsim_cycles.csv"
TOLERANCE = 0.005
COLUMNS = ["network", "layer", "dnnsim_cycles", "simulated_cycles", "relative_error", "dnnsim_mults",
           "simulated_mults", "dnnsim_dense_cycles"]


def readme_text(frame: pd.DataFrame) -> str:
    worst = frame.relative_error.abs().max()
    rows = "\n".join(f"| {r.network} | {r.layer} | {r.dnnsim_cycles} | {r.simulated_cycles} | {r.relative_error:+.3%} "
                     f"| {r.dnnsim_mults} | {r.simulated_mults} |" for r in frame.itertuples())
    return readme(__name__, worst=f"{worst:.3%}", rows=rows)


@study("scnn-dnnsim", "SCNN with DNNsim's rules vs DNNsim's cycles on its five development layers", cpu_s=5.8)
def scnn_dnnsim_study(layers: tuple[str, ...] | None = None) -> StudyOutput:
    published = {row["layer"]: row for row in csv.DictReader(open(DATA / "dnnsim_cycles.csv"))}
    network = load_workload(DATA / "scnn_dnnsim.yaml")
    chosen = tuple(layer for layer in network.layers if layers is None or layer.name in layers)
    run = simulate(load_arch("scnn_dnnsim"), Network(network.name, chosen))
    rows = []
    for layer, result in zip(chosen, run.layers):
        want = published[layer.name]
        cycles = int(want["cycles"])
        rows.append({"network": want["network"], "layer": layer.name, "dnnsim_cycles": cycles,
                     "simulated_cycles": result.cycles, "relative_error": (result.cycles - cycles) / cycles,
                     "dnnsim_mults": int(want["mults"]), "simulated_mults": result.macs_issued,
                     "dnnsim_dense_cycles": int(want["dense_cycles"])})
    frame = pd.DataFrame(rows, columns=COLUMNS)
    comparisons = tuple(
        [Comparison(f"{r.network} {r.layer}: SCNN cycles with DNNsim's rules", "cycles", float(r.dnnsim_cycles),
                    float(r.simulated_cycles), SOURCE, TOLERANCE) for r in frame.itertuples()]
        + [Comparison(f"{r.network} {r.layer}: multiplications with an output in the plane", "products",
                      float(r.dnnsim_mults), float(r.simulated_mults), SOURCE, TOLERANCE) for r in frame.itertuples()])
    return StudyOutput(results=frame, figure=cycles_per_layer(frame), readme=readme_text(frame), comparisons=comparisons)
