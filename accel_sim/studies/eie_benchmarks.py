"""EIE on its nine benchmark layers at 64 PEs: time against the paper's Table IV, ideal time, load
balance, padding, energy; every layer on chip, as the paper runs them."""
from __future__ import annotations

import math

import pandas as pd

from accel_sim.pipeline.plot.studies.eie_benchmarks import time_and_energy_split
from accel_sim.pipeline.simulate import simulate_many
from accel_sim.studies.eie_common import EIE_PAPER, WORKLOAD, benchmark_network, eie_arch
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme

COLUMNS = ("layer", "cycles", "time_us", "ideal_time_us", "balanced_time_us", "load_efficiency", "padding_fraction",
           "energy_pj", "pointer_bits", "pointer_sram_kib", "dram_spill_bytes")
# The paper's Table IV (wall-clock time, batch 1, EIE with 64 PEs at 800 MHz, microseconds): the
# measured ("actual") time and the time with perfect load balance ("theoretical"). Read from the
# paper; the brief does not carry these numbers.
TABLE_IV = "Han et al., EIE, ISCA 2016, Table IV (EIE 64 PEs, batch 1)"
TABLE_IV_ACTUAL_US = {"Alex-6": 30.3, "Alex-7": 12.2, "Alex-8": 9.9, "VGG-6": 34.4, "VGG-7": 8.7, "VGG-8": 8.4,
                      "NT-We": 8.0, "NT-Wd": 13.9, "NT-LSTM": 7.5}
TABLE_IV_THEORETICAL_US = {"Alex-6": 28.1, "Alex-7": 11.7, "Alex-8": 8.9, "VGG-6": 28.1, "VGG-7": 7.9, "VGG-8": 7.3,
                           "NT-We": 5.2, "NT-Wd": 13.0, "NT-LSTM": 6.5}
TABLE_IV_GEOMEAN_TOLERANCE = 0.15   # issue 15's bar on the geometric-mean error of the nine actual times

# Per-PE power by module, mW (brief): the published energy split to compare with.
PUBLISHED_POWER_MW = {"act_queue": 0.112, "pointer_read": 1.807, "spmat_read": 4.955, "arithmetic": 1.162,
                      "act_rw": 1.122}
PUBLISHED_TOTAL_POWER_W = 0.59  # brief: 64 PEs


def benchmark_frames(layers: tuple[str, ...] | None = None,
                     workload: str = WORKLOAD) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(results table with COLUMNS, per layer: energy by module in pJ, compute / spill cycles and the
    compute cycles if an empty column slice cost a PE cycle). The shipped arch, the other empty-column rule
    and ``sram_overflow: dram_spill`` run together (:func:`~accel_sim.pipeline.simulate.simulate_many`: each
    layer encoded once)."""
    arch = eie_arch()
    network = benchmark_network(layers, workload)
    shipped, other_rule, spilling = simulate_many(
        (arch, eie_arch(empty_column_costs_cycle=not arch.eie.empty_column_costs_cycle),
         eie_arch(sram_overflow="dram_spill")), network)
    rows, energy_rows = [], []
    for layer, r, energy, other, spilled in zip(network.layers, shipped.layers, shipped.energy, other_rule.layers,
                                                spilling.layers):
        balanced_cycles = math.ceil(r.metrics["entries"] / arch.eie.n_pes)   # one input vector per layer
        rows.append({
            "layer": layer.name, "cycles": r.cycles, "time_us": r.cycles / arch.clock * 1e6,
            "ideal_time_us": r.metrics["ideal_cycles"] / arch.clock * 1e6,
            "balanced_time_us": balanced_cycles / arch.clock * 1e6,
            "load_efficiency": r.metrics["load_efficiency"], "padding_fraction": r.metrics["padding_fraction"],
            "energy_pj": energy.total_pj, "pointer_bits": int(r.metrics["pointer_bits"]),
            "pointer_sram_kib": r.metrics["pointer_sram_bytes"] / 1024, "dram_spill_bytes": int(r.dram_read_bytes),
        })
        energy_rows.append({"layer": layer.name, "compute_cycles": r.compute_cycles,
                            "other_empty_rule_cycles": other.compute_cycles,
                            "spill_stall_cycles": r.stall_cycles, "spill_bytes_if_spilled": int(spilled.metrics["spill_bytes"]),
                            "spill_cycles_if_spilled": spilled.stall_cycles,
                            **energy.by_component_pj})
    return pd.DataFrame(rows, columns=list(COLUMNS)), pd.DataFrame(energy_rows).fillna(0.0)


def arch_clock() -> float:
    return eie_arch().clock


@study("eie-benchmarks", "EIE on the nine benchmark layers (64 PEs): time vs ideal, load balance, padding, energy", cpu_s=6.3)
def eie_benchmarks(layers: tuple[str, ...] | None = None, workload: str = WORKLOAD) -> StudyOutput:
    frame, energy = benchmark_frames(layers, workload)
    arch = eie_arch()
    rule = "costs" if arch.eie.empty_column_costs_cycle else "does not cost"
    other = energy["other_empty_rule_cycles"].sum() / energy["compute_cycles"].sum() - 1
    modules = [m for m in PUBLISHED_POWER_MW if m in energy.columns]
    total_energy = energy[modules].sum().sum()
    published_total = sum(PUBLISHED_POWER_MW.values())
    comparisons = tuple(
        Comparison(f"{m} share of PE energy (published: of PE power)", "fraction", PUBLISHED_POWER_MW[m] / published_total,
                   float(energy[m].sum() / total_energy), f"{EIE_PAPER}: per-PE power by module")
        for m in modules)
    compute_s = energy["compute_cycles"].sum() / arch_clock()
    comparisons += (Comparison("chip power over the benchmark layers, DRAM spills excluded (published: 64 PEs)", "W",
                               PUBLISHED_TOTAL_POWER_W, float(total_energy * 1e-12 / compute_s), EIE_PAPER),)
    comparisons += table_iv_comparisons(frame)
    deviating = frame.merge(energy, on="layer")
    deviating = deviating[(deviating["pointer_bits"] != arch.eie.pointer_bits)
                          | (deviating["pointer_sram_kib"] * 1024 != arch.eie.pointer_sram_size)]
    deviation_note = "".join(
        f"  - {row.layer}: {int(row.pointer_bits)}-bit pointers, {row.pointer_sram_kib:.1f} KiB of pointer SRAM "
        f"per PE; spilled instead (`dram_spill`), it would load {int(row.spill_bytes_if_spilled):,} bytes from DRAM "
        f"first, {int(row.spill_cycles_if_spilled):,} cycles at {arch.dram.bandwidth:g} B/cycle against "
        f"{int(row.compute_cycles):,} compute cycles.\n" for row in deviating.itertuples()).rstrip("\n")
    text = readme(__name__, deviation_note=deviation_note or "  - none.", rule=rule, other=f"{other:+.1%}")
    return StudyOutput(frame, time_and_energy_split(frame, energy, modules), text, comparisons)


def geomean_error_factor(simulated: list[float], published: list[float]) -> float:
    """exp(mean |ln(simulated / published)|): 1 when every time matches, 1.15 for 15 % off on average."""
    return math.exp(sum(abs(math.log(s / p)) for s, p in zip(simulated, published, strict=True)) / len(published))


def table_iv_comparisons(frame: pd.DataFrame) -> tuple[Comparison, ...]:
    """One row per Table IV time of the layers in ``frame`` (actual and theoretical), and the
    geometric-mean error factor of the actual times with issue 15's tolerance."""
    rows = frame[frame["layer"].isin(list(TABLE_IV_ACTUAL_US))]
    comparisons = tuple(
        Comparison(f"{row.layer} time on EIE (Table IV actual)", "us", TABLE_IV_ACTUAL_US[row.layer],
                   float(row.time_us), TABLE_IV) for row in rows.itertuples())
    comparisons += tuple(
        Comparison(f"{row.layer} time with perfect load balance (Table IV theoretical; simulated: "
                   "entries / 64 PEs)", "us", TABLE_IV_THEORETICAL_US[row.layer], float(row.balanced_time_us),
                   TABLE_IV) for row in rows.itertuples())
    if len(rows):
        factor = geomean_error_factor(rows["time_us"].tolist(), [TABLE_IV_ACTUAL_US[n] for n in rows["layer"]])
        comparisons += (Comparison(
            f"geometric-mean error factor of the {len(rows)} Table IV actual times, exp(mean abs(ln(sim / pub)))",
            "factor", 1.0, factor, TABLE_IV, TABLE_IV_GEOMEAN_TOLERANCE),)
    return comparisons
