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
from accel_sim.models.dlu.accounting import COMPUTE_COMPONENTS, mac_actions
from accel_sim.models.dlu.spec import DLUSpec
from accel_sim.foundations.energy.table import EnergyTable, load_energy_table
from accel_sim.systems.nn.dlu_training import step_cost
from accel_sim.systems.nn.mlp import MLP
from accel_sim.systems.nn.training import DEFAULT_SCHEDULE, LENET_300_100_HIDDEN
from accel_sim.pipeline.plot.studies.precision_energy import energy_and_throughput
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.foundations.workload.layer import GemmLayer

ARCH = "dlu"
DATA_TYPES = ("fp32", "fp16", "int16", "int8", "int4", "ternary", "binary")
DIGITS_SIZES = (64, *LENET_300_100_HIDDEN, 10)
PER_MAC_GEMM = GemmLayer("gemm", m=256, k=1024, n=1024)  # large: tile-edge waste negligible
FUJITSU_COMPUTE_POWER = {"int16": 0.5, "int8": 0.25}  # brief: about -50 % at 16 bit, -75 % at 8 bit


def mac_energy_sources(table: EnergyTable, spec: DLUSpec) -> tuple[float, str]:
    """Datapath energy of one MAC of ``spec``'s data type and the table entries it comes from (with
    their sources)."""
    total, cited = 0.0, []
    for component_class, action, width, per_mac in mac_actions(spec):
        energy = table.energy_per_action_pj(component_class, action, width)
        total += per_mac * energy
        entries = [e for e in table.spec.entries if (e.component_class, e.action) == (component_class, action)]
        nearest = min(entries, key=lambda e: (abs(math.log2(e.bits / width)), -e.bits))
        scaled = "" if nearest.bits == width else f", scaled from {nearest.bits} bits"
        cited.append(f"{per_mac} x {component_class}@{width}b = {energy:.4g} pJ ({nearest.source}{scaled})")
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
        mac_pj, sources = mac_energy_sources(table, arch.dlu)
        step = step_cost(arch, model, batch)
        rows.append({
            "format": data_type, "bits": arch.dlu.bits, "lanes": arch.dlu.lanes,
            "mac_pj": mac_pj, "compute_pj_per_mac": compute / result.macs_issued,
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
    return frame


@study("precision-energy", "Energy and throughput per MAC and per training step vs bit width (DLU-style array)")
def precision_energy() -> StudyOutput:
    frame = precision_energy_table()
    by = frame.set_index("format")
    readme = f"""
One organisation (`arch_configs/dlu.yaml`: 4 units x 16 elements x 8 lanes of 32 bits) with its
datapath type swept. A type of b bits packs 32 / b MACs per lane (brief: half the width, twice the
operations in the same area), so lanes go from {by.loc['fp32', 'lanes']} (FP32) to {by.loc['binary', 'lanes']} (binary).
Per-MAC figures are on a 1024 x 1024 x 256 GEMM; per-step figures are one training step of the digits
MLP 64-300-100-10 at batch 64 (its forward, weight-gradient and activation-gradient GEMMs; ternary and
binary steps are costed as if that network trained in those types, which `dfp-training` does not do).
`mac_pj` is the datapath alone (column `mac_energy_source` cites every table entry it uses);
`compute_pj_per_mac` adds requantization and the statistics block; `total_pj_per_mac` adds on-chip
memory and DRAM.

Against Fujitsu's compute-unit power (about -50 % at 16 bit and -75 % at 8 bit): the table gives a
16-bit MAC {by.loc['int16', 'mac_pj_vs_fp32']:.3f} x and an 8-bit MAC {by.loc['int8', 'mac_pj_vs_fp32']:.3f} x the FP32 MAC energy,
far below 1/2 and 1/4. The Horowitz numbers are the arithmetic alone: an FP32 MAC is a 3.7 pJ multiply plus
a 0.9 pJ float add, while a fixed-point MAC is an integer multiply that shrinks with the square of its
width (3.1 pJ at 32 bits, 0.775 pJ at 16, 0.2 pJ at 8) plus a 0.1 pJ 32-bit integer accumulate. Fujitsu's
figures are for a whole compute unit (registers, operand delivery, control, clock), parts that scale about
linearly with width or not at all, so the unit saves less than its arithmetic. This model has no such fixed per-lane overhead: we do not add one without a source.
With memory traffic included (the step energy), the saving follows the bytes moved, about linear in the
width: {by.loc['int16', 'step_total_vs_fp32']:.2f} x at 16 bit and {by.loc['int8', 'step_total_vs_fp32']:.2f} x at 8 bit.

Throughput: the GEMM's operands do not fit half of the 1 MiB on-chip memory, so tiles stream from DRAM
(128 B per cycle per operand stream in `dlu.yaml`, an estimate) in blocks shaped for operand reuse.
Achieved vs peak MACs per cycle: """ + ", ".join(
        f"{t} {by.loc[t, 'macs_per_cycle']:.0f} of {by.loc[t, 'lanes']}" for t in DATA_TYPES) + """.
Narrower types gain lanes in the same area and need fewer bytes per operand; where the achieved rate falls
behind the lanes, the array waits on DRAM. INT16 runs slightly slower than FP16 with the same lanes because
every result also passes the statistics block.
"""
    source = "brief: Fujitsu DLU compute-unit power; simulated: Horowitz ISSCC 2014 table"
    comparisons = tuple(row for t, ratio in FUJITSU_COMPUTE_POWER.items() for row in (
        Comparison(f"compute energy per MAC, {t} / FP32 (datapath)", "ratio", ratio,
                   float(by.loc[t, "mac_pj_vs_fp32"]), source),
        Comparison(f"compute energy of a training step, {t} / FP32", "ratio", ratio,
                   float(by.loc[t, "step_compute_vs_fp32"]), source)))
    return StudyOutput(frame, energy_and_throughput(frame), readme, comparisons)
