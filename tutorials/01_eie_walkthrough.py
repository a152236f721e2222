# %% [markdown]
# # Tutorial 1: EIE, cycle by cycle
#
# EIE (Han et al., "EIE: Efficient Inference Engine on Compressed Deep Neural Network",
# ISCA 2016) multiplies a **pruned, weight-shared** matrix W by a **sparse** activation
# vector a, for fully connected and LSTM layers. It skips twice: it never touches a zero
# weight (W is stored compressed) and never broadcasts a zero activation. This tutorial
#
# 1. encodes the paper's worked example (a 16 x 8 matrix on 4 processing elements, PEs)
#    in EIE's storage format, exactly as in the paper's Figure 2;
# 2. runs it on the cycle-level model and follows every broadcast and every PE's work,
#    cycle by cycle, and writes a trace you can open in a browser;
# 3. runs a full-size benchmark layer on the 64-PE chip;
# 4. shows why EIE gives each PE an activation FIFO, and how deep it should be.
#
# Run it with `python tutorials/01_eie_walkthrough.py` (about 10 to 30 seconds). Figures
# and the trace go to `tutorials/out/` (or the folder in `ACCEL_SIM_TUTORIAL_OUT`).

# %%
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # figures are written to files; no window needed
import matplotlib.pyplot as plt
import numpy as np

from accel_sim import REPO_ROOT, load_arch, load_workload, simulate
from accel_sim.models.eie import functional, reference
from accel_sim.models.eie.family import FAMILY
from accel_sim.studies.eie_fifo_depth import fifo_depth_frame
from accel_sim.pipeline.trace.eie import build_trace, cycle_records
from accel_sim.pipeline.trace.html import write_html
from accel_sim.pipeline.trace.perfetto import write_chrome_trace
from accel_sim.pipeline.trace.table import format_table, write_table
from accel_sim.foundations.workload.layer import Network

OUT = Path(os.environ.get("ACCEL_SIM_TUTORIAL_OUT", REPO_ROOT / "tutorials" / "out"))
OUT.mkdir(parents=True, exist_ok=True)

# %% [markdown]
# ## 1. The worked example and its encoding
#
# `workloads/eie_4pe_example.yaml` holds the paper's example: W has 16 rows (outputs) and 8
# columns (inputs). Row i lives on PE `i mod 4`, so PE 0 holds rows 0, 4, 8 and 12. Those
# four rows have exactly the non-zero pattern of the paper's Figure 2 (each non-zero is
# written `100 i + j + 1`, so W[12, 5] = 1206); the other PEs' rows are random. The input
# vector is ours (the paper gives none for the figure): six of its eight activations are
# non-zero.
#
# `arch_configs/eie_4pe_example.yaml` is the EIE chip shrunk to 4 PEs with 2-entry FIFOs.

# %%
arch = load_arch("eie_4pe_example")
network = load_workload("eie_4pe_example")
layer = network.layers[0]
plan = FAMILY.plan(arch, layer)               # operands, their codes and the storage, checked
W = plan.operands.weights.T                   # accel_sim stores fc weights as inputs x outputs
print("PE 0's rows of W (rows 0, 4, 8, 12):")
print(W[0::4].astype(int))
print("input vector a:", plan.operands.inputs[0].astype(int))

# %% [markdown]
# EIE stores weights with **weight sharing**: a k-means codebook of 16 values, and each
# weight is replaced by its 4-bit index v into the codebook (index 0 means "zero"). The
# codebook is kept in 16-bit fixed point. Then each PE stores its rows column by column as
# entries (v, z), where z is the number of zeros *in this PE's slice* before the entry, and
# a column pointer p_j says where column j starts. The encoder is the project's
# `EIEInterleavedCSC` (`accel_sim.foundations.compress`).

# %%
stored = plan.stored_weights()
pe0 = stored.pes[0]
print("codebook (16-bit fixed point):", stored.codebook.tolist())
print("PE 0 virtual weights v :", pe0.codes.tolist())
print("PE 0 relative index z  :", pe0.rel_index.tolist())
print("PE 0 column pointer p  :", pe0.col_ptr.tolist())
PE0_REL_INDEX = pe0.rel_index.tolist()
PE0_COL_PTR = pe0.col_ptr.tolist()

# %% [markdown]
# These are Figure 2's arrays: relative index `0 1 0 1 0 2 0 0 0 2 0 2 0` and column
# pointer `0 3 4 6 6 8 10 11 13`. Column 0 has 3 entries on PE 0 (W0,0, W8,0, W12,0:
# local rows 0, 2, 3, so z = 0, 1, 0); column 3 has none (p_3 = p_4 = 6).
#
# A zero run longer than 15 does not fit in 4 bits: EIE inserts a **padding entry**
# (v = 0, z = 15) that still costs a PE cycle (the paper's Figure 3).

# %%
from accel_sim.foundations.compress import EIEInterleavedCSC  # noqa: E402  (the encoder, used directly once)

column = np.array([0, 0, 1, 2] + [0] * 18 + [3]).reshape(-1, 1)
fig3 = EIEInterleavedCSC.from_dense(column, n_pes=1)
print("Figure 3 column: v =", fig3.pes[0].values.tolist(), " z =", fig3.pes[0].rel_index.tolist(),
      f" ({fig3.n_padding} padding entry)")

# %% [markdown]
# ## 2. Cycle by cycle
#
# The machine, per clock cycle:
#
# - **Broadcast.** A tree of leading-non-zero detectors (LNZD) finds the next non-zero
#   activation a_j and broadcasts (a_j, j) to every PE's FIFO, one per cycle, but only
#   when *every* FIFO has room. Here the tree has one level: the first broadcast leaves at
#   cycle 1.
# - **PE.** When idle, a PE pops its FIFO, reads p_j and p_j+1 (two pointer banks, one
#   cycle) and then handles one entry per cycle: the codebook turns v into a weight, the
#   address accumulator adds z + 1 to the row, and the arithmetic unit adds weight x a_j to
#   that row's accumulator.
#
# The reference model (a discrete-event simulation: one process for the LNZD root, one per
# PE, FIFOs of the hardware depth) executes exactly this; its log of every broadcast and every
# slice a PE worked on becomes a trace. Each line of the table below is one cycle: the broadcast (`a<j>=<fixed-point value>`), what each PE did
# (`c<column> r<output row> v<codebook index>`, `.` = idle) and the FIFO occupancies.

# %%
trace = build_trace(arch, layer)
print(format_table(trace.table))
write_chrome_trace(trace, OUT / "01_example_trace.json")
write_table(trace, OUT / "01_example_cycles.txt")
write_html(trace, OUT / "01_example_trace.html")
run = reference.run(plan, record=True)
(vector,) = run.vectors
log = cycle_records(vector, arch.eie.n_pes)
EXAMPLE_CYCLES = vector.cycles
EXAMPLE_BROADCAST_CYCLES = [b.cycle for b in vector.broadcasts]
EXAMPLE_PE_ENTRIES = list(run.counters.pe_entries)
print(f"{EXAMPLE_CYCLES} cycles; broadcasts at cycles {EXAMPLE_BROADCAST_CYCLES}; entries per PE {EXAMPLE_PE_ENTRIES}")

# %% [markdown]
# Read the table: broadcasts leave at cycles 1, 2, 3, then **5, 8, 10**, not every cycle.
# At cycle 3, PEs 0, 1 and 3 hold two waiting activations (their FIFOs are full, depth 2)
# while PE 2 is idle: the broadcast of a4 must wait until the slow PEs pop. PE 3 has the
# most work (14 entries) and is busy from cycle 2 to cycle 15; PE 2 (6 entries) idles most
# of the time. That idling is **load imbalance**.
#
# Open `01_example_trace.html` in a browser to step through these cycles on a drawing of the
# datapath (no network needed; `docs/teaching/eie.md` says which cycles to stop at), or
# `01_example_trace.json` in https://ui.perfetto.dev (1 us there = 1 cycle): one track per PE,
# the broadcast track, and the FIFO occupancies as counters. The figure below draws the same thing.

# %%
fig, (ax, ax2) = plt.subplots(2, 1, figsize=(9, 5), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
colors = plt.get_cmap("tab10")
for record in log:
    if record.broadcast is not None:
        ax.barh(4, 1, left=record.cycle, color="black")
        ax.text(record.cycle + 0.5, 4, f"a{record.broadcast[1]}", color="white", ha="center", va="center", fontsize=7)
    for pe, action in enumerate(record.pe):
        if action is not None and action.kind == "mac":
            ax.barh(pe, 1, left=record.cycle, color=colors(action.column), edgecolor="white")
            ax.text(record.cycle + 0.5, pe, f"r{action.row}", ha="center", va="center", fontsize=7)
ax.set_yticks(range(5), [f"PE {p}" for p in range(4)] + ["broadcast"])
ax.set_title("4-PE example: each PE's entries (colour = column) and the broadcasts")
fifo = np.array([r.fifo for r in log])
for pe in range(4):
    ax2.step(np.arange(len(fifo)) + 1, fifo[:, pe] + 0.05 * pe, where="pre", label=f"PE {pe}")
ax2.set_ylabel("FIFO entries")
ax2.set_xlabel("cycle")
ax2.legend(fontsize=7, ncol=4)
fig.tight_layout()
fig.savefig(OUT / "01_example_timeline.png", dpi=110)
plt.close(fig)

# %% [markdown]
# The model also computed the outputs: the accumulators equal a plain numpy product of the
# quantized layer (codes looked up in the codebook, times the fixed-point activations).

# %%
EXAMPLE_OUTPUTS_MATCH = bool(np.array_equal(run.outputs, functional.outputs(plan)))
print("cycle-level outputs == numpy reference of the quantized layer:", EXAMPLE_OUTPUTS_MATCH)

# %% [markdown]
# ## 3. A full-size layer on the 64-PE chip
#
# `arch_configs/eie.yaml` is the chip: 64 PEs at 800 MHz, FIFO depth 8, 64-bit sparse-matrix
# SRAM. `workloads/eie_benchmarks.yaml` has the paper's nine benchmark layers; take the
# NeuralTalk LSTM (1201 inputs, 2400 outputs, 10 % of the weights kept, dense activations).
# `simulate` uses the **fast path**: the same cycle rules solved per broadcast with numpy,
# and tested to give the same cycles and counts as the reference on hundreds of small cases.

# %%
eie = load_arch("eie")
lstm = [layer for layer in load_workload("eie_benchmarks").layers if layer.name == "NT-LSTM"]
result = simulate(eie, Network("lstm", tuple(lstm)))
row = result.layers_frame().iloc[0]
LSTM_CYCLES = int(row["cycles"])
LSTM_EFFICIENCY = float(row["load_efficiency"])
LSTM_PADDING = float(row["padding_fraction"])
LSTM_IDEAL_CYCLES = int(row["ideal_cycles"])
print(f"NT-LSTM: {LSTM_CYCLES:,} cycles = {row['time_s'] * 1e6:.2f} us; ideal (perfect balance, no padding) "
      f"{LSTM_IDEAL_CYCLES:,} cycles")
print(f"load-balance efficiency {LSTM_EFFICIENCY:.3f}, padding entries {LSTM_PADDING:.1%} of the work")
print("energy by module (nJ):", {k.removeprefix("energy_").removesuffix("_pj"): round(float(v) / 1e3, 1)
                                 for k, v in row.items() if k.startswith("energy_") and k != "energy_pj"})

# %% [markdown]
# 2400 outputs over 64 PEs gives each PE about 38 rows: at 10 % density, a PE's column slice
# often has a zero run longer than 15, hence the padding entries. The sparse-matrix SRAM
# reads dominate the energy, as on the chip (the paper: 54 % of a PE's power).
#
# ## 4. Why a FIFO, and how deep?
#
# With a 1-entry FIFO, every broadcast waits for the slowest PE of the previous column: the
# PEs advance in lock-step and each column costs its *maximum* work over PEs. A deeper FIFO
# lets a PE that had little work on one column run ahead on the next ones, so the work
# evens out over several columns. The study function behind `accel-sim reproduce
# eie-fifo-depth` sweeps the depth (here on two layers to keep it quick).

# %%
fifo = fifo_depth_frame(layers=("Alex-8", "NT-LSTM"), depths=(1, 2, 4, 8, 16, 32, 64))
print(fifo.to_string(index=False))
EFFICIENCY = fifo.pivot(index="fifo_depth", columns="layer", values="load_efficiency")
fig, ax = plt.subplots(figsize=(6, 4))
for name in EFFICIENCY.columns:
    ax.plot(EFFICIENCY.index, EFFICIENCY[name], "o-", label=name)
ax.axvline(8, color="grey", ls=":", label="EIE's choice (8)")
ax.set_xscale("log", base=2)
ax.set_xlabel("activation FIFO depth")
ax.set_ylabel("load-balance efficiency")
ax.legend()
fig.tight_layout()
fig.savefig(OUT / "01_fifo_depth.png", dpi=110)
plt.close(fig)

# %% [markdown]
# Efficiency climbs steeply up to a depth of about 8 and then flattens: the paper's reason
# for choosing 8. Our depth-1 efficiency (about 0.7 on these layers) is higher than the
# paper's "about half the cycles are bubbles"; the paper's matrices are real pruned
# networks, ours random ones at the published densities, so compare the shape of the
# curve, not the numbers (the `eie-fifo-depth` study's README lists the gap).
#
# Where next: `accel-sim reproduce eie-benchmarks --out reports/eie-benchmarks` runs all
# nine layers; `accel-sim trace --arch eie_4pe_example --workload eie_4pe_example --out
# DIR` writes the trace of section 2 from the command line.
