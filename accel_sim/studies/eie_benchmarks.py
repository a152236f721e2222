"""EIE on its nine benchmark layers at 64 PEs: time against the paper's Table IV, ideal time, load
balance, padding, energy; every layer on chip, as the paper runs them."""
from __future__ import annotations

import dataclasses
import math

import pandas as pd

from accel_sim.models.eie.family import FAMILY
from accel_sim.models.eie.fast.dram_spill import spill_stall_cycles
from accel_sim.models.eie.plan import retime
from accel_sim.models.eie.plan.storage import storage_fit
from accel_sim.pipeline.plot.studies.eie_benchmarks import time_and_energy_split
from accel_sim.studies.eie_common import EIE_PAPER, WORKLOAD, benchmark_layers, costed, eie_arch
from accel_sim.studies.registry import Comparison, StudyOutput, study

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
    compute cycles if an empty column slice cost a PE cycle)."""
    arch = eie_arch()
    with_energy = costed(arch)
    rows, energy_rows = [], []
    for layer in benchmark_layers(layers, workload):
        plan = FAMILY.plan(arch, layer)   # once: simulate_layer's run, and the other rule's timing below
        run = with_energy(FAMILY.account(plan, FAMILY.fast(plan)))
        r = run.result
        other_rule = retime(plan, "empty_column_costs_cycle", not arch.eie.empty_column_costs_cycle)
        other_rule_cycles = FAMILY.fast(other_rule).compute_cycles
        spilling = dataclasses.replace(arch.eie, sram_overflow="dram_spill")
        spill_bytes = storage_fit(arch.name, layer.name, spilling, layer.k, plan.slices.entries_per_pe).spill_bytes
        balanced_cycles = math.ceil(r.metrics["entries"] / arch.eie.n_pes)   # one input vector per layer
        rows.append({
            "layer": layer.name, "cycles": r.cycles, "time_us": r.cycles / arch.clock * 1e6,
            "ideal_time_us": r.metrics["ideal_cycles"] / arch.clock * 1e6,
            "balanced_time_us": balanced_cycles / arch.clock * 1e6,
            "load_efficiency": r.metrics["load_efficiency"], "padding_fraction": r.metrics["padding_fraction"],
            "energy_pj": run.energy.total_pj, "pointer_bits": plan.pointer_bits,
            "pointer_sram_kib": plan.pointer_sram_size / 1024, "dram_spill_bytes": int(r.dram_read_bytes),
        })
        energy_rows.append({"layer": layer.name, "compute_cycles": r.compute_cycles,
                            "other_empty_rule_cycles": other_rule_cycles,
                            "spill_stall_cycles": r.stall_cycles, "spill_bytes_if_spilled": spill_bytes,
                            "spill_cycles_if_spilled": spill_stall_cycles(arch, spill_bytes),
                            **run.energy.by_component_pj})
    return pd.DataFrame(rows, columns=list(COLUMNS)), pd.DataFrame(energy_rows).fillna(0.0)


def arch_clock() -> float:
    return eie_arch().clock


@study("eie-benchmarks", "EIE on the nine benchmark layers (64 PEs): time vs ideal, load balance, padding, energy", cpu_s=7.5)
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
    readme = f"""
Each of the nine EIE benchmark layers (`workloads/eie_benchmarks.yaml`: shapes and densities of the
paper's table, uniform-random sparsity, seed 0) on `arch_configs/eie.yaml` (64 PEs, 800 MHz, FIFO
depth 8, 64-bit sparse-matrix SRAM), one input vector each, with the fast path of
`accel_sim.models.eie` (cycle-exact against its discrete-event reference).

- `cycles`, `time_us`: the simulated time (compared with Table IV's EIE "actual" time);
  `ideal_time_us`: ceil(non-zero weights in the broadcast columns / 64) cycles, i.e. perfect load
  balance and no padding entries; `balanced_time_us`: ceil(entries, padding included, / 64) cycles,
  perfect load balance with the padding: our reading of Table IV's "theoretical" time (the brief does
  not define it).
- `pointer_bits`, `pointer_sram_kib`: the column-pointer width and pointer SRAM per PE the layer runs on;
  `dram_spill_bytes`: bytes loaded from DRAM before the layer (0: every layer runs on chip).
- `load_efficiency`: PE busy cycles (padding entries included) / (64 x cycles); one minus the share of
  bubble cycles (starved or finished early).
- `padding_fraction`: padding entries / entries processed.
- `energy_pj`: action counts x the Horowitz 45 nm table (`accel_sim/foundations/energy/tables/horowitz_45nm.yaml`),
  by module: activation queue, pointer read, sparse-matrix read, arithmetic, activation read / write
  (and DRAM for spills).

All nine layers run on chip, as the paper runs them (the brief: weights "kept on chip"; the paper
reports all nine on the 64-PE chip). One setting of the brief cannot hold VGG-6 as described:

- 16-bit pointers (brief) address entries 0..65,535 of a PE's slice; VGG-6 (25,088 columns x 4,096
  rows at 4 %, 64 local rows per PE, zero runs over 15 padded) puts up to about 100 K entries on a PE.
  The brief's own SRAM does not square with 16 bits either: 128 KB of 8-bit entries is 131,072 entries,
  which needs 17-bit pointers.
- 25,089 column pointers per PE need 49 KiB at 16 bits and 52 KiB at 17 bits; the pointer SRAM is 32 KB.

The deviation chosen is the smallest that runs the layer on chip: `eie.sram_overflow: grow_on_chip`
(named in `arch_configs/eie.yaml` with this reason) gives only a layer that does not fit the pointer width
and pointer SRAM it needs; every layer that fits runs on the brief's 16 bits and 32 KB. Energy of the
grown layer's pointer reads uses its wider words and larger SRAM. Layers that deviate:
{deviation_note or "  - none."}

The alternatives: `dram_spill` (the layer's excess loaded from DRAM first: what this study did before,
which the paper does not do) or 17-bit pointers and a 64 KiB pointer SRAM for every layer (which changes
the pointer energy of the eight layers that fit).

Gaps and caveats:
- The densities are approximate (the brief) and the matrices random: absolute times are not the paper's.
- Table IV's times are the paper's measured chip; the comparison rows list each layer, and one row
  the geometric-mean error factor exp(mean abs(ln(simulated / published))) over the Table IV times,
  against issue 15's 15 % bar. The Table IV numbers are read from the paper (the brief does not carry
  them). VGG-6 on chip comes out 29 % faster than the measured chip: its balanced time is 18 % below
  Table IV's theoretical time, so the gap is mostly in the work per PE (random sparsity and approximate
  densities), not in the load balance.
- Energy uses generic 45 nm SRAM / register-file numbers scaled by width and capacity, not EIE's
  post-layout figures: compare the shares, not the absolute power.
- Pipeline fill / drain of the PE pipeline (a few cycles per vector) is not modelled.
- Whether an empty column slice costs a PE cycle is not stated by the paper (`eie.empty_column_costs_cycle`);
  here it {rule} one. The other choice changes the compute cycles of these layers by {other:+.1%} in total.
"""
    return StudyOutput(frame, time_and_energy_split(frame, energy, modules), readme, comparisons)


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
