"""Energy and throughput per MAC and per training step vs bit width on the DLU-style array.

The same organisation (``arch_configs/dlu.yaml``) with ``dlu.data_type`` set to FP32, FP16,
INT16, INT8, INT4, ternary and binary: narrower lanes pack more MACs in the same area; the
energy per MAC comes from the 45 nm table (Horowitz ISSCC 2014, and the estimates marked as
such for XNOR / popcount / leading-bit detection). Workloads: one large GEMM (per-MAC
figures, little tile-edge waste) and one training step of the digits MLP (batch 64).
"""
from __future__ import annotations

import math

import pandas as pd

from accel_sim.pipeline.catalog import load_arch
from accel_sim.foundations.energy.table import EnergyTable, load_energy_table
from accel_sim.systems.nn.dlu_training import COMPUTE_COMPONENTS, step_cost
from accel_sim.systems.nn.mlp import MLP
from accel_sim.systems.nn.training import DEFAULT_SCHEDULE, LENET_300_100_HIDDEN
from accel_sim.pipeline.plot.studies.precision_energy import energy_and_throughput
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.studies.template import readme
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.foundations.workload.layer import GemmLayer

ARCH = "dlu"
DATA_TYPES = ("fp32", "fp16", "int16", "int8", "int4", "ternary", "binary")
DIGITS_SIZES = (64, *LENET_300_100_HIDDEN, 10)
PER_MAC_GEMM = GemmLayer("gemm", m=256, k=1024, n=1024)  # large: tile-edge waste negligible
FUJITSU_RELEASE = ("Fujitsu Laboratories press release, 24 April 2017 (xSIG 2017), 'Fujitsu Develops Circuit "
                   "Technology to Improve Energy Efficiency of Hardware Used for Deep Learning'")
FUJITSU_COMPUTE_POWER = {"int16": 0.5, "int8": 0.25}  # about -50 % at 16 bit, -75 % at 8 bit
LANE_OVERHEAD = ("registers", "control", "requantize", "statistics", "settings")  # a lane's energy beyond its MAC


def mac_energy_sources(table: EnergyTable, result: LayerResult) -> tuple[float, str]:
    """Datapath energy of one MAC of a run on the DLU and the table entries it comes from (with their
    sources): the run's ``datapath`` actions charged per MAC (a count that is a whole multiple of the MACs
    issued; the per-output scale of binary and ternary is not)."""
    total, cited = 0.0, []
    for a in result.actions:
        if a.component != "datapath" or a.count % result.macs_issued:
            continue
        per_mac, width = a.count // result.macs_issued, a.bits
        energy = table.energy_per_action_pj(a.component_class, a.action, width)
        total += per_mac * energy
        entries = [e for e in table.spec.entries if (e.component_class, e.action) == (a.component_class, a.action)]
        nearest = min(entries, key=lambda e: (abs(math.log2(e.bits / width)), -e.bits))
        scaled = "" if nearest.bits == width else f", scaled from {nearest.bits} bits"
        cited.append(f"{per_mac} x {a.component_class}@{width}b = {energy:.4g} pJ ({nearest.source}{scaled})")
    return total, "; ".join(cited)


def precision_energy_table(gemm: GemmLayer = PER_MAC_GEMM, batch: int = DEFAULT_SCHEDULE.batch_size) -> pd.DataFrame:
    rows = []
    model = MLP(DIGITS_SIZES)
    for data_type in DATA_TYPES:
        arch = load_arch(ARCH, {"dlu.data_type": data_type})
        table = load_energy_table(arch.energy_table)
        run = simulate_layer(arch, gemm, table)
        result, energy = run.result, run.energy.by_component_pj
        compute = sum(energy.get(c, 0.0) for c in COMPUTE_COMPONENTS)
        mac_pj, sources = mac_energy_sources(table, result)
        step = step_cost(arch, model, batch)
        lane_ops = result.metrics["lane_operations"]
        rows.append({
            "format": data_type, "bits": arch.dlu.bits, "lanes": arch.dlu.lanes,
            "mac_pj": mac_pj, "compute_pj_per_mac": compute / result.macs_issued,
            "lane_overhead_pj_per_mac": sum(energy.get(c, 0.0) for c in LANE_OVERHEAD) / result.macs_issued,
            "lane_pj_per_cycle": compute / lane_ops, "macs_per_lane_cycle": result.macs_issued / lane_ops,
            "total_pj_per_mac": sum(energy.values()) / result.macs_issued,
            "macs_per_cycle": result.macs_issued / result.cycles,
            "step_cycles": step.cycles, "step_compute_energy_pj": step.compute_energy_pj,
            "step_total_energy_pj": step.energy_pj, "mac_energy_source": sources,
        })
    frame = pd.DataFrame(rows)
    fp32 = frame.set_index("format").loc["fp32"]
    frame["mac_pj_vs_fp32"] = frame["mac_pj"] / fp32["mac_pj"]
    frame["step_compute_vs_fp32"] = frame["step_compute_energy_pj"] / fp32["step_compute_energy_pj"]
    frame["step_total_vs_fp32"] = frame["step_total_energy_pj"] / fp32["step_total_energy_pj"]
    # performance per watt at equal clock and full lanes: power = energy per MAC x MACs per second
    frame["perf_per_watt_vs_fp32"] = fp32["compute_pj_per_mac"] / frame["compute_pj_per_mac"]
    frame["perf_per_watt_with_memory_vs_fp32"] = fp32["total_pj_per_mac"] / frame["total_pj_per_mac"]
    return frame


def _verdict(by: pd.DataFrame) -> str:
    """Whether the INT16 and INT8 performance per watt fall in Fujitsu's 2-4x."""
    inside = all(2.0 <= by.loc[t, "perf_per_watt_vs_fp32"] <= 4.0 for t in ("int16", "int8"))
    return "inside" if inside else "outside"


@study("precision-energy",
        "Energy and throughput per MAC and per training step vs bit width (DLU-style array)", cpu_s=1.8)
def precision_energy() -> StudyOutput:
    frame = precision_energy_table()
    by = frame.set_index("format")
    throughput = ", ".join(f"{t} {by.loc[t, 'macs_per_cycle']:.0f} of {by.loc[t, 'lanes']}" for t in DATA_TYPES)
    text = readme(__name__, fp32_lanes=by.loc["fp32", "lanes"], binary_lanes=by.loc["binary", "lanes"],
                  int16_mac=f"{by.loc['int16', 'mac_pj_vs_fp32']:.3f}", int8_mac=f"{by.loc['int8', 'mac_pj_vs_fp32']:.3f}",
                  int16_step=f"{by.loc['int16', 'step_total_vs_fp32']:.2f}",
                  int8_step=f"{by.loc['int8', 'step_total_vs_fp32']:.2f}", throughput=throughput,
                  **{f"{t}_overhead": f"{by.loc[t, 'lane_overhead_pj_per_mac']:.2f}" for t in ("fp32", "int16", "int8")},
                  int16_ppw=f"{by.loc['int16', 'perf_per_watt_vs_fp32']:.2f}",
                  int8_ppw=f"{by.loc['int8', 'perf_per_watt_vs_fp32']:.2f}", ppw_verdict=_verdict(by))
    source = (f"{FUJITSU_RELEASE}: compute-unit power about -50 % at 16 bit, -75 % at 8 bit; simulated: Horowitz "
              "ISSCC 2014 table")
    comparisons = tuple(row for t, ratio in FUJITSU_COMPUTE_POWER.items() for row in (
        Comparison(f"compute energy per MAC, {t} / FP32 (datapath)", "ratio", ratio,
                   float(by.loc[t, "mac_pj_vs_fp32"]), source),
        Comparison(f"compute energy of a training step, {t} / FP32", "ratio", ratio,
                   float(by.loc[t, "step_compute_vs_fp32"]), source),
        Comparison(f"compute-unit performance per watt, {t} vs FP32 (datapath, registers, control, statistics; "
                   "published: 2-4x from 16 and 8 bits)", "x", 1 / ratio, float(by.loc[t, "perf_per_watt_vs_fp32"]),
                   f"{FUJITSU_RELEASE}: compute-unit power -50 % / -75 % at equal work; simulated: Horowitz ISSCC "
                   "2014 table")))
    return StudyOutput(frame, energy_and_throughput(frame), text, comparisons)
