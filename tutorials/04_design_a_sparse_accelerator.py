# %% [markdown]
# # Tutorial 4: design a sparse accelerator
#
# You have a small CNN whose weights were pruned **2:4** (in every group of four
# consecutive weights along the reduction dimension, two are zero: the pattern NVIDIA's
# A100 sparse tensor cores accelerate). You want to build a weight-stationary systolic
# array for it. Four questions:
#
# 1. How many processing elements (PEs)? 64, 256, 1024, 4096?
# 2. Which shape: square (32 x 32) or wide (16 x 64)?
# 3. Is it worth supporting N:M sparsity in the array (SCALE-Sim v3's layer-wise
#    `SparsitySupport`: a 2:4 layer occupies only 2/4 of the array rows)?
# 4. How big a filter (weight) buffer?
#
# No single design is best in every respect: more PEs cost silicon, a small buffer makes
# the array wait for DRAM. The answer is a **Pareto front**: the designs that no other
# design beats in cycles, energy *and* area at once. This tutorial
#
# 1. simulates one design by hand, with and without N:M support;
# 2. writes a **sweep** (a design-space exploration) and runs it into a durable result
#    store, then runs it again and extends it to see that nothing is recomputed;
# 3. finds the Pareto front in pandas and plots it;
# 4. reads the result store (an SQLite file) directly with pandas.
#
# Run it with `python tutorials/04_design_a_sparse_accelerator.py`. Figures go to
# `tutorials/out/` (or the folder in the environment variable `ACCEL_SIM_TUTORIAL_OUT`).
# It takes about 15 to 30 seconds.

# %%
import json
import os
import shutil
import sqlite3
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # figures are written to files; no window needed
import matplotlib.pyplot as plt
import pandas as pd
import yaml

from accel_sim import REPO_ROOT, load_arch, load_workload, simulate
from accel_sim.foundations.compress import NOfM
from accel_sim.pipeline.plot.sweep import pareto_plot, sensitivity_plot
from accel_sim.pipeline.sweep import load_results, load_sweep, pareto_front, pareto_mask, run_sweep, sweep_from_mapping
from accel_sim.foundations.workload.operands import layer_operands, weight_matrix

SWEEP_FILE = REPO_ROOT / "sweeps" / "sparse_systolic_design.yaml"
OUT = Path(os.environ.get("ACCEL_SIM_TUTORIAL_OUT", REPO_ROOT / "tutorials" / "out"))
OUT.mkdir(parents=True, exist_ok=True)
STORE_DIR = OUT / "04_sweep"          # the sweep's output folder (results.sqlite, results.csv)
shutil.rmtree(STORE_DIR, ignore_errors=True)  # start from an empty store: same output on every run
pd.set_option("display.width", 140)
pd.set_option("display.max_columns", 12)

# %% [markdown]
# ## 1. The workload: a 2:4-pruned CNN
#
# Workloads are YAML files: one entry per layer with its shape, and optionally how sparse
# its operands are. `sweeps/small_cnn_2of4.yaml` marks every layer `weight_sparsity: "2:4"`
# and asks for generated weights that really follow the pattern (`weight_pattern: nm`).
# `load_workload` takes a name in `workloads/` or a path.

# %%
network = load_workload(REPO_ROOT / "sweeps" / "small_cnn_2of4.yaml")
for layer in network.layers:
    gemm = layer.gemm()
    print(f"{layer.name:6s} GEMM m={gemm.m:5d} k={gemm.k:5d} n={gemm.n:3d}  "
          f"dense MACs {gemm.macs:>10,}  weight sparsity {layer.weight_sparsity}")

# %% [markdown]
# Every layer has concrete, seeded weights (`layer_operands`). Stored in the N:M format
# (`accel_sim.foundations.compress.NOfM`), each kept weight carries a 2-bit position inside its group
# of four: that **metadata** is the price of structured sparsity. With 8-bit weights:

# %%
WORD_BITS = 8  # the base config's word_bits (arch_configs/scalesim_32x32_ws.yaml)
storage_rows = []
for layer in network.layers:
    matrix = weight_matrix(layer, layer_operands(layer).weights)      # (reduction, filters)
    encoded = NOfM.from_dense(matrix, n=2, m=4, axis=0)                # groups run down the reduction
    parts = encoded.storage(WORD_BITS)
    storage_rows.append({"layer": layer.name, "dense_bits": matrix.size * WORD_BITS, **parts.as_dict()})
storage = pd.DataFrame(storage_rows)
storage["compressed_over_dense"] = storage["total_bits"] / storage["dense_bits"]
print(storage[["layer", "dense_bits", "values_bits", "metadata_bits", "padding_bits", "total_bits",
               "compressed_over_dense"]].to_string(index=False))
NM_STORAGE_RATIO = float(storage["total_bits"].sum() / storage["dense_bits"].sum())
print(f"2:4 weights take {NM_STORAGE_RATIO:.1%} of the dense bits (half the values plus 2 bits per kept weight)")

# %% [markdown]
# So 2:4 with 8-bit weights stores 62.5 % of the dense bits, not 50 %. The systolic model
# below follows SCALE-Sim v3: it fetches these 2 metadata bits per kept weight from DRAM
# and reads them with every weight (counted in bytes and energy), but, like SCALE-Sim,
# gives them no cycles, and it has no cost for the multiplexers that pick the inputs
# matching each kept weight. Tutorial 2 looks at index overhead in detail.
#
# ## 2. One design by hand
#
# Start from SCALE-Sim's example array (`arch_configs/scalesim_32x32_ws.yaml`: 32 x 32
# PEs, weight stationary, 64 KiB buffers, 10 bytes per cycle of DRAM bandwidth per
# operand stream). `load_arch` takes overrides as dotted paths, exactly like
# `accel-sim run --set systolic.nm_sparsity=true`.

# %%
base = load_arch("scalesim_32x32_ws")
with_nm = load_arch("scalesim_32x32_ws", {"systolic.nm_sparsity": True})
dense_run = simulate(base, network)
sparse_run = simulate(with_nm, network)
columns = ["layer", "cycles", "stall_cycles", "macs_issued", "macs_skipped", "energy_pj", "dram_read_bytes"]
print("without N:M support\n", dense_run.layers_frame()[columns].to_string(index=False))
print("with N:M support\n", sparse_run.layers_frame()[columns].to_string(index=False))
dense_total = dense_run.summary_frame().iloc[0]
sparse_total = sparse_run.summary_frame().iloc[0]
HAND_SPEEDUP = dense_total["cycles"] / sparse_total["cycles"]
HAND_ENERGY_RATIO = sparse_total["energy_pj"] / dense_total["energy_pj"]
print(f"N:M support: {HAND_SPEEDUP:.2f}x fewer cycles, {HAND_ENERGY_RATIO:.0%} of the energy "
      f"(MACs issued: {sparse_total['macs_issued'] / dense_total['macs_issued']:.0%} of dense)")
fc_dense = dense_run.layers_frame().set_index("layer").loc["fc"]
fc_sparse = sparse_run.layers_frame().set_index("layer").loc["fc"]
FC_DRAM_RATIO = fc_dense["dram_read_bytes"] / fc_sparse["dram_read_bytes"]
print(f"fc layer: {fc_dense['stall_cycles'] / fc_dense['cycles']:.0%} of its cycles are DRAM stalls without "
      f"N:M support; with it, {FC_DRAM_RATIO:.1f}x fewer DRAM bytes read")

# %% [markdown]
# Half the MACs are skipped (`macs_skipped`), yet the speed-up is not simply 2x: look at
# `stall_cycles` and `dram_read_bytes`. The fully connected layer (batch 1) uses each
# weight once, so it mostly waits for DRAM, whatever the array does; with N:M support it
# has half the weights to fetch and, with this buffer, re-fetches less, so its DRAM reads
# fall by more than 2x. Memory, not MACs, decides much of the gain: that is why the buffer
# size and the DRAM traffic belong in the design space.
#
# ## 3. A sweep file
#
# A sweep names a base config, a workload and **axes**: dotted config paths with the values
# to try. All combinations are run (`mode: grid`, the default; `zip` and `random` exist
# too). An axis may be *linked*: `array` below sets rows and cols together.

# %%
print(SWEEP_FILE.read_text())
sweep = load_sweep(SWEEP_FILE)   # validates every point before anything runs
print(f"{len(sweep.points)} points, axes: {', '.join(sweep.axes)}")

# %% [markdown]
# `run_sweep` (or `accel-sim sweep sweeps/sparse_systolic_design.yaml --out DIR`) runs
# every point and commits each one to `DIR/results.sqlite` the moment it finishes, keyed
# by a hash of the fully resolved config. `jobs=2` would use two worker processes;
# `scheduler="tcp://host:8786"` a Dask cluster. The results are identical either way.

# %%
first = run_sweep(SWEEP_FILE, STORE_DIR, jobs=1)
print(first.line())

# %% [markdown]
# ### Resuming and extending
#
# Run the same sweep again (as after a crash or a Ctrl-C): every point is already in the
# store, nothing is recomputed. Then add a fifth array size, 64 x 64: only its four new
# points run. (Here the extended sweep is built from a Python mapping with
# `sweep_from_mapping`; editing the YAML file and rerunning does the same.)

# %%
again = run_sweep(SWEEP_FILE, STORE_DIR)
print(again.line())
extended_definition = yaml.safe_load(SWEEP_FILE.read_text())
extended_definition["axes"]["array"].append({"systolic.rows": 64, "systolic.cols": 64})
extended = sweep_from_mapping(extended_definition, str(SWEEP_FILE), SWEEP_FILE.parent)
grown = run_sweep(extended, STORE_DIR)
print(grown.line())

# %% [markdown]
# ## 4. The results as a DataFrame, and the Pareto front
#
# `load_results` gives one row per point: the axis values (the linked axis as a label
# like `16/64`, plus the resolved `systolic.rows` and `systolic.cols`), every column of
# the network summary (the same columns as `accel-sim run`'s `summary.csv`), and the
# derived metrics the sweep asked for (`edp_pj_cycles`, ...).
#
# First we use the **number of PEs** as a quick area proxy (it ignores the SRAM buffers and the
# N:M operand-selection logic); section 4b below uses the silicon area the costing path
# reports (`area_mm2`).

# %%
frame = load_results(STORE_DIR)
frame["pes"] = frame["systolic.rows"] * frame["systolic.cols"]
frame["filter_kib"] = frame["systolic.filter_sram.size"] // 1024
frame["nm"] = frame["systolic.nm_sparsity"].map({True: "N:M on", False: "N:M off"})
shown = ["array", "pes", "nm", "filter_kib", "cycles", "stall_cycles", "energy_pj", "dram_read_bytes"]
print(frame[shown].to_string(index=False))

# %% [markdown]
# `pareto_front(frame, objectives)` keeps the rows no other row dominates, every objective
# minimised. With two objectives (cycles and energy) and then with three (adding PEs):

# %%
OBJECTIVES_2D = ["cycles", "energy_pj"]
OBJECTIVES_3D = ["cycles", "energy_pj", "pes"]
front_2d = pareto_front(frame, OBJECTIVES_2D)
front_3d = pareto_front(frame, OBJECTIVES_3D)
print("Pareto front, cycles and energy:\n", front_2d[shown].to_string(index=False))
print("Pareto front, cycles, energy and PEs:\n", front_3d[shown].to_string(index=False))
FRONT_NM_SHARE = float((front_3d["systolic.nm_sparsity"]).mean())
print(f"{FRONT_NM_SHARE:.0%} of the 3-objective front supports N:M sparsity")
best_by_array = frame.groupby("array", observed=True)["cycles"].min()
print("fewest cycles per array shape:", best_by_array.to_dict())

# %% [markdown]
# With cycles and energy alone, the front is short: two designs, both with N:M support and
# the 64 KiB filter buffer (32 x 32 is a little faster, 64 x 64 a little more frugal).
# Energy is dominated by DRAM traffic, which the same choices reduce. Add the area proxy
# and the trade-off appears: the 16 x 16 array with N:M support is about half as fast but
# has a quarter of the PEs of 32 x 32, so it joins the front.
#
# Note also that the 64 x 64 array, four times the PEs of 32 x 32, is not faster: its
# layers fill only part of it, and it waits for the same DRAM.
#
# The figure shows every design in the (cycles, energy) plane, coloured by N:M support,
# with the two-objective front as a staircase. The second panel shows the area side:
# cycles against PEs, the three-objective front circled.

# %%
fig = pareto_plot(frame, x="cycles", y="energy_pj", color_by="nm",
                  title="2:4 CNN on a weight-stationary array: every design")
fig.savefig(OUT / "04_pareto_cycles_energy.png", dpi=120)
plt.close(fig)

fig, ax = plt.subplots(figsize=(7, 4.5))
on_front = pareto_mask(frame, OBJECTIVES_3D)
for label, group in frame.groupby("nm"):
    ax.scatter(group["pes"], group["cycles"], s=18 + group["filter_kib"], label=label, alpha=0.8)
ax.scatter(frame.loc[on_front, "pes"], frame.loc[on_front, "cycles"], s=140, facecolors="none",
           edgecolors="black", label="front: cycles, energy, PEs")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xlabel("PEs (area proxy)")
ax.set_ylabel("cycles")
ax.set_title("Cycles against array size (marker size: filter buffer)")
ax.legend(fontsize="small")
fig.tight_layout()
fig.savefig(OUT / "04_cycles_vs_pes.png", dpi=120)
plt.close(fig)

# %% [markdown]
# ## 4b. Area in mm2, and the area-energy front
#
# The systolic family lists the blocks its chip is built of (three SRAM buffers, rows x cols
# PEs of a multiplier, an adder and registers), and the costing path prices them with the
# area table after the run, like energy (`accel_sim/foundations/energy/tables/cacti_aladdin_45nm_area.yaml`:
# CACTI 7 SRAMs, Aladdin logic, 45 nm). Every point so has `area_mm2` (with a per-component
# breakdown, `area_<component>_mm2`), `static_energy_pj` (the blocks' leakage for the run
# time, beside the dynamic `energy_pj`), and the sweep's `throughput_per_area` metric
# (`throughput_macs_per_cycle_mm2`). The area model has no cost for N:M operand selection, so
# N:M support changes energy and cycles here, not area.

# %%
OBJECTIVES_AREA = ["area_mm2", "energy_pj"]
front_area = pareto_front(frame, OBJECTIVES_AREA)
area_shown = ["array", "nm", "filter_kib", "area_mm2", "energy_pj", "static_energy_pj",
              "throughput_macs_per_cycle_mm2"]
print("Pareto front, area and energy:\n", front_area[area_shown].to_string(index=False))
BEST_PER_AREA = frame.loc[frame["throughput_macs_per_cycle_mm2"].idxmax(), "array"]
print(f"most throughput per mm2: {BEST_PER_AREA}")
fig = pareto_plot(frame, x="area_mm2", y="energy_pj", color_by="nm",
                  title="2:4 CNN: energy against silicon area (45 nm)")
fig.savefig(OUT / "04_pareto_area_energy.png", dpi=120)
plt.close(fig)

# %% [markdown]
# Every design on the area-energy front supports N:M; the front runs from the smallest
# array (8 x 8, least area) to 64 x 64 (least energy, three times the area of 32 x 32 for 7 %
# less energy), and the 16 x 16 designs have the most throughput per mm2: a bigger array
# spends its extra silicon waiting on DRAM. Leakage (`static_energy_pj`) is at most about 1 %
# of the dynamic energy here (most of it the PEs' logic; the SRAM entries are CACTI's
# low-standby-power cells), growing with the array: a big array that waits also leaks.

# %% [markdown]
# Which axis matters most? `sensitivity` groups the points by each axis value and compares
# the mean of a metric (here the energy-delay product): the spread of those means is the
# axis's main effect.

# %%
from accel_sim.pipeline.sweep import sensitivity  # noqa: E402  (imported where it is introduced)

effects = sensitivity(frame, "edp_pj_cycles")
print(effects[["axis", "levels", "value_at_min", "value_at_max", "relative_range"]].to_string(index=False))
fig = sensitivity_plot(frame, "edp_pj_cycles")
fig.savefig(OUT / "04_sensitivity_edp.png", dpi=120)
plt.close(fig)
STRONGEST_AXIS = str(effects["axis"].iloc[0])
print(f"strongest effect on the energy-delay product: {STRONGEST_AXIS}")

# %% [markdown]
# ## 5. Reading the result store directly
#
# `results.sqlite` is a plain SQLite database: any tool can read it, no accel_sim needed.
# Four tables: `meta` (the sweep definition), `points` (one row per point: its labels and
# store key), `results` (one row per computed config: the summary as JSON), `runs` (one row
# per run, with how many points it computed: the resume history).

# %%
with sqlite3.connect(STORE_DIR / "results.sqlite") as db:
    tables = pd.read_sql_query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", db)
    runs = pd.read_sql_query("SELECT executor, planned, computed FROM runs ORDER BY started_at", db)
    raw = pd.read_sql_query("SELECT p.idx AS point, p.axis_values, r.summary FROM points p "
                            "JOIN results r ON p.key = r.key ORDER BY p.idx", db)
print("tables:", ", ".join(tables["name"]))
print("runs (oldest first):\n", runs.to_string(index=False))
# Each summary is a JSON object; pandas turns a list of them into columns.
summaries = pd.json_normalize([json.loads(s) for s in raw["summary"]])
axis_values = pd.DataFrame([dict(json.loads(v)) for v in raw["axis_values"]])
by_hand = pd.concat([raw[["point"]], axis_values, summaries], axis=1)
print(by_hand[["point", "systolic.rows", "systolic.cols", "systolic.nm_sparsity", "cycles", "energy_pj"]].head())
STORE_MATCHES = bool((by_hand["cycles"].to_numpy() == frame["cycles"].to_numpy()).all()
                     and (by_hand["energy_pj"].to_numpy() == frame["energy_pj"].to_numpy()).all())
print(f"the hand-read store matches load_results: {STORE_MATCHES}")

# %% [markdown]
# `results.csv` (and `results.parquet` when pyarrow is installed) in the same folder hold
# the same table as `load_results`, for spreadsheets and other languages.
#
# ## What to take away
#
# - In this sweep, N:M support is on every Pareto-optimal design: skipping half the
#   weights halves both the array passes and the weight traffic.
# - Bigger is not always faster: past 32 x 32 the array waits on DRAM (`stall_cycles`),
#   so array size, buffer size and bandwidth must be chosen together.
# - The numbers are only as honest as the model: this systolic model (SCALE-Sim v3
#   semantics) charges the N:M metadata (25 % extra weight bits at 8 bits, section 1) in
#   traffic and energy but not in cycles, nothing for selecting the matching inputs, and
#   the area table prices no N:M selection logic. A real design study would add those costs before trusting
#   the front (the `tensor_core` family models them for a GPU).
# - Next: `accel-sim sweep ... --jobs 2` for parallel runs; `docs/user_guide.md` explains
#   sweep files, and the other tutorials the sparse architectures (EIE, SCNN) that skip
#   unstructured zeros.

# %%
print(f"figures written to {OUT}")
