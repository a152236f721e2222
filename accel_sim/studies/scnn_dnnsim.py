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
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.foundations.workload.layer import Network
from accel_sim.foundations.workload.loader import load_workload

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "dnnsim_scnn"
SOURCE = "DNNsim (isakedo/DNNsim 4748a60) SCNN model, tests/data/dnnsim_scnn/dnnsim_cycles.csv"
TOLERANCE = 0.005
COLUMNS = ["network", "layer", "dnnsim_cycles", "simulated_cycles", "relative_error", "dnnsim_mults",
           "simulated_mults", "dnnsim_dense_cycles"]


def readme(frame: pd.DataFrame) -> str:
    worst = frame.relative_error.abs().max()
    rows = "\n".join(f"| {r.network} | {r.layer} | {r.dnnsim_cycles} | {r.simulated_cycles} | {r.relative_error:+.3%} "
                     f"| {r.dnnsim_mults} | {r.simulated_mults} |" for r in frame.itertuples())
    return f"""\
accel_sim's SCNN family with DNNsim's rules (`arch_configs/scnn_dnnsim.yaml`) on the exact tensors
DNNsim ran (five layers; tensors and DNNsim's printed cycles in `tests/data/dnnsim_scnn/`, from
DNNsim commit 4748a60). Largest |error|: {worst:.3%} (bar: 0.5 %).

| network | layer | DNNsim cycles | simulated | error | DNNsim mults | simulated macs_issued |
|---|---|---|---|---|---|---|
{rows}

The rules, each a `scnn:` choice (the paper's choice is the default): `partition: padded_blocks`
(zero-pad, round up to 8, equal blocks), `kc_rule: output_tile` (Kc from the output tile, no halo
room), `weight_order: k_then_rs` (r, s, then k fastest), `bank_mapping: dnnsim_xor`,
`barrier: group_channel`, `halo_charge: largest_region_serial`, `out_of_plane: slot_only`,
`dram: ignored`, `stride_phases: dnnsim` (activation phase (y + pad) % stride meets weight phase
(r + pad) % stride, output row truncated toward zero: not the convolution's pairing when pad % stride
!= 0) and `fc_layout: dnnsim_planes` (FC inputs padded to a multiple of 256, run as 16 x 16 planes).
Layers DNNsim's development set lacks (strides 2-4, padding, 1 x 1 to 11 x 11 kernels, several
groups, FC layers) are checked against a product-by-product statement of these rules
(`tests/scnn/dnnsim_rules.py`, which reproduces the printed cycles above) in
`tests/scnn/test_dnnsim_unseen_layers.py`. `dense_cycles` (DNNsim's same schedule without zero skipping, padding positions
included) is not a design accel_sim models (its dense DCNN is a dot-product array): listed, not compared.
"""


@study("scnn-dnnsim", "SCNN with DNNsim's rules vs DNNsim's cycles on its five development layers")
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
    return StudyOutput(results=frame, figure=cycles_per_layer(frame), readme=readme(frame), comparisons=comparisons)
