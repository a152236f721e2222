"""Eyeriss v1 against its measured chip (Chen et al., JSSC 2017, Tables V and VI), and Eyeriss v2 against
its published post-layout figures (Chen et al., JETCAS 2019, Table VI and Sec. V-C).

The measured figures are not repeated here: they are the cases of ``measured_hardware/eyeriss_v1.yaml``
(the silicon-validation registry), each with its source and the tolerance set before simulating, simulated
the way the silicon-validation study simulates every case (:func:`accel_sim.pipeline.measured.simulate_case`).
Eyeriss v2 was never measured as a chip: its figures are post-layout gate-level simulations, kept here
(``V2_FIGURES``), not in the measured-hardware registry.
"""
from __future__ import annotations

import pandas as pd

from accel_sim.foundations.measured import MEASURED_DIR, MeasuredCase, load_group
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.measured import simulate_case, simulate_run
from accel_sim.pipeline.plot.studies.eyeriss import measured_vs_simulated
from accel_sim.pipeline.simulate import reused_layer_runs, simulate
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme

CASES = MEASURED_DIR / "eyeriss_v1.yaml"
V2 = "Chen et al., JETCAS 2019"
V2_TOLERANCE = 0.25  # issue 34's bar for v2's published figures, set before simulating
# (case, workload, quantity, unit, published, source): post-layout simulation results, batch 1, the whole
# network. Sparse AlexNet's two figures are the paper's ratios to sparse MobileNet's (Sec. V-C: "5.3x
# throughput improvement and 3.9x energy improvement over AlexNet", Table VII), 1470.6 / 5.3 and 2560.3 / 3.9.
V2_FIGURES = (
    ("v2_sparse_mobilenet_throughput", "eyeriss_v2_mobilenet", "inferences_per_s", "1/s", 1470.6,
     f"{V2}, abstract and Table VI (sparse MobileNet)"),
    ("v2_sparse_mobilenet_efficiency", "eyeriss_v2_mobilenet", "inferences_per_j", "1/J", 2560.3,
     f"{V2}, abstract and Table VI (sparse MobileNet)"),
    ("v2_sparse_alexnet_throughput", "eyeriss_v2_sparse_alexnet", "inferences_per_s", "1/s", 1470.6 / 5.3,
     f"{V2}, Sec. V-C (1470.6 / 5.3)"),
    ("v2_sparse_alexnet_efficiency", "eyeriss_v2_sparse_alexnet", "inferences_per_j", "1/J", 2560.3 / 3.9,
     f"{V2}, Sec. V-C (2560.3 / 3.9)"),
)
VGG = "eyeriss_vgg16_conv"
# Chen et al., JSSC 2017, Table VI (VGG-16 CONV layers, batch 3, 1 V, core 200 MHz, link 60 MHz), per layer: total and
# processing latency (ms), active PEs, global-buffer accesses (MB), DRAM accesses (MB), chip power (mW). Read from the
# table's image on IEEE Xplore (article 7738524, table 6); the cleaned transcription in the FODLAM repository
# (cucapra/fodlam, data/eyeriss-vgg16.csv) agrees but for its 163 active PEs in CONV5-1 (the image: 168, 100 %). Each
# column adds up to the table's total row (tests/eyeriss/test_published_breakdowns.py).
# Shown beside the model, not compared as cases: the paper publishes no VGG-16 mapping.
VGG16_TABLE_VI = (
    ("conv1_1", 76.2, 38.0, 156, 112.6, 15.4, 247), ("conv1_2", 910.3, 810.6, 156, 2402.8, 54.0, 218),
    ("conv2_1", 470.3, 405.3, 156, 1201.4, 33.4, 242), ("conv2_2", 894.3, 810.8, 156, 2402.8, 48.5, 231),
    ("conv3_1", 241.1, 204.0, 156, 607.4, 20.2, 254), ("conv3_2", 460.9, 408.1, 156, 1214.8, 32.2, 235),
    ("conv3_3", 457.7, 408.1, 156, 1214.8, 30.8, 233), ("conv4_1", 135.8, 105.1, 168, 321.8, 17.8, 278),
    ("conv4_2", 254.8, 210.0, 168, 643.7, 28.6, 261), ("conv4_3", 246.3, 210.0, 168, 643.7, 22.8, 240),
    ("conv5_1", 54.3, 48.3, 168, 90.0, 6.3, 258), ("conv5_2", 53.7, 48.5, 168, 90.0, 5.7, 236),
    ("conv5_3", 53.7, 48.5, 168, 90.0, 5.6, 230),
)


def compare(cases: list[MeasuredCase]) -> tuple[pd.DataFrame, list[Comparison]]:
    rows, comparisons = [], []
    for case in cases:
        simulated = simulate_case(case).value
        rows.append({"case": case.name, "workload": case.workload, "layer": case.layer or "all",
                     "quantity": case.quantity, "unit": case.unit, "kind": "measured silicon",
                     "published": case.measured, "measured": case.measured,
                     "simulated": simulated, "relative_error": (simulated - case.measured) / case.measured,
                     "tolerance": case.tolerance})
        comparisons.append(Comparison(f"{case.name} ({case.quantity})", case.unit, case.measured,
                                      simulated, case.source + " [measured silicon]", case.tolerance))
    return pd.DataFrame(rows), comparisons


def v2_compare() -> tuple[pd.DataFrame, list[Comparison]]:
    """Eyeriss v2's published figures next to the ``eyeriss_v2`` config's run (chip energy: DRAM excluded)."""
    arch, runs, rows, comparisons = load_arch("eyeriss_v2"), {}, [], []
    for name, workload, quantity, unit, published, source in V2_FIGURES:
        if workload not in runs:
            summary = simulate(arch, load_workload(workload)).summary_frame().iloc[0]
            runs[workload] = {"inferences_per_s": arch.clock / summary["cycles"],
                              "inferences_per_j": 1e12 / (summary["energy_pj"] - summary["energy_dram_pj"])}
        simulated = runs[workload][quantity]
        rows.append({"case": name, "workload": workload, "layer": "all", "quantity": quantity, "unit": unit,
                     "kind": "post-layout simulation", "published": published, "measured": None,
                     "simulated": simulated, "relative_error": (simulated - published) / published,
                     "tolerance": V2_TOLERANCE})
        comparisons.append(Comparison(f"{name} ({quantity})", unit, published, simulated,
                                      source + " [post-layout simulation, not measured]", V2_TOLERANCE))
    return pd.DataFrame(rows), comparisons


@study("eyeriss", "Eyeriss v1 against the measured chip (AlexNet, VGG-16 CONV); Eyeriss v2 against its post-layout figures",
       cpu_s=10.5)
def eyeriss_study(workloads: tuple[str, ...] = ("eyeriss_alexnet_conv", "eyeriss_vgg16_conv"),
                  v2: bool = True) -> StudyOutput:
    cases = [c for c in load_group(CASES).cases if c.workload in workloads]
    with reused_layer_runs():   # AlexNet's layers run alone and in the whole network: each once
        frame, comparisons = compare(cases)
    layers = frame[(frame.workload == "eyeriss_alexnet_conv") & (frame.layer != "all")]
    if v2:
        v2_frame, v2_comparisons = v2_compare()
        frame, comparisons = pd.concat([frame, v2_frame], ignore_index=True), comparisons + v2_comparisons
    within = frame[frame.relative_error.abs() <= frame.tolerance + 1e-12]
    failed = frame.drop(within.index)
    vgg = [c for c in cases if c.workload == VGG]
    text = readme(__name__, cases=len(frame), within=len(within), v2_rows=_v2_table(frame),
                  vgg_rows=_vgg_layer_table(vgg[0]) if vgg else "| (not run) | | | | | | |",
                  missed=", ".join(f"{r.case} ({r.relative_error:+.0%})" for r in failed.itertuples()) or "none")
    return StudyOutput(frame, measured_vs_simulated(layers), text, tuple(comparisons))


def _v2_table(frame: pd.DataFrame) -> str:
    rows = frame[frame.kind == "post-layout simulation"]
    return "\n".join(f"| {r.case} | {r.published:.1f} | {r.simulated:.1f} | {r.relative_error:+.0%} |"
                     for r in rows.itertuples()) or "| (not run) | | | |"


def _vgg_layer_table(case: MeasuredCase) -> str:
    """Table VI's VGG-16 layers beside the model's run of the same workload (chip / model in each cell)."""
    rows = {str(r["layer"]): r for r in simulate_run(case.run).layer_rows}
    lines = []
    for layer, total, processing, pes, glb_mb, dram_mb, power in VGG16_TABLE_VI:
        r = rows[layer]
        chip_mw = (r["energy_pj"] + r["static_energy_pj"] - r["energy_dram_pj"]) * 1e-9 / r["time_s"]
        dram = (r["dram_read_bytes"] + r["dram_write_bytes"]) / 1e6
        lines.append(f"| {layer} | {total:.1f} / {r['time_s'] * 1e3:.1f} | {processing:.1f} / "
                     f"{r['processing_time_s'] * 1e3:.1f} | {pes} / {r['active_pes']:.0f} | {dram_mb:.1f} / {dram:.1f} | "
                     f"{glb_mb:.0f} / {r['glb_bytes'] / 1e6:.0f} ({glb_mb / processing:.2f}) | {power} / {chip_mw:.0f} |")
    return "\n".join(lines)
