"""Eyeriss v1 against its measured chip (Chen et al., JSSC 2017, Tables V and VI).

The measured figures are not repeated here: they are the cases of ``measured_hardware/eyeriss_v1.yaml``
(the silicon-validation registry), each with its source and the tolerance set before simulating.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from accel_sim.foundations.config.yaml_io import read_yaml
from accel_sim.foundations.workload.layer import Network
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.plot.studies.eyeriss import measured_vs_simulated
from accel_sim.pipeline.simulate import simulate
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme

CASES = Path(__file__).resolve().parents[2] / "measured_hardware" / "eyeriss_v1.yaml"


def quantities(rows: list[dict], images: int) -> dict[str, float]:
    """The registry's quantities for a run (rows: its per-layer dicts, summed when several)."""
    seconds = sum(r["time_s"] for r in rows)
    energy_pj = sum(r["energy_pj"] + r.get("static_energy_pj", 0.0) for r in rows)
    return {"time_s": seconds, "processing_time_s": sum(r["processing_time_s"] for r in rows),
            "dram_bytes": sum(r["dram_read_bytes"] + r["dram_write_bytes"] for r in rows),
            "power_w": energy_pj * 1e-12 / seconds, "active_pes": rows[0]["active_pes"] if len(rows) == 1 else 0.0,
            "throughput_per_s": images / seconds}


def run_workload(name: str) -> tuple[Network, list[dict]]:
    network = load_workload(name)
    return network, simulate(load_arch("eyeriss_v1"), network).layer_rows()


def compare(cases: list[dict], runs: dict[str, tuple[Network, list[dict]]]) -> tuple[pd.DataFrame, list[Comparison]]:
    rows, comparisons = [], []
    for case in cases:
        network, layer_rows = runs[case["workload"]]
        picked = [r for r in layer_rows if case.get("layer") in (None, r["layer"])]
        simulated = quantities(picked, network.layers[0].batch)[case["quantity"]]
        rows.append({"case": case["name"], "workload": case["workload"], "layer": case.get("layer", "all"),
                     "quantity": case["quantity"], "unit": case["unit"], "measured": case["measured"],
                     "simulated": simulated, "relative_error": (simulated - case["measured"]) / case["measured"],
                     "tolerance": case["tolerance"]})
        comparisons.append(Comparison(f"{case['name']} ({case['quantity']})", case["unit"], case["measured"],
                                      simulated, case["source"] + " [measured silicon]", case["tolerance"]))
    return pd.DataFrame(rows), comparisons


@study("eyeriss", "Eyeriss v1 (row stationary) against the measured chip: AlexNet and VGG-16 CONV layers", cpu_s=40)
def eyeriss_study(workloads: tuple[str, ...] = ("eyeriss_alexnet_conv", "eyeriss_vgg16_conv")) -> StudyOutput:
    cases = [c for c in read_yaml(CASES)["cases"] if c["workload"] in workloads]
    runs = {name: run_workload(name) for name in workloads}
    frame, comparisons = compare(cases, runs)
    layers = frame[(frame.workload == "eyeriss_alexnet_conv") & (frame.layer != "all")]
    within = frame[frame.relative_error.abs() <= frame.tolerance + 1e-12]
    failed = frame.drop(within.index)
    text = readme(__name__, cases=len(frame), within=len(within),
                  missed=", ".join(f"{r.case} ({r.relative_error:+.0%})" for r in failed.itertuples()) or "none")
    return StudyOutput(frame, measured_vs_simulated(layers), text, tuple(comparisons))
