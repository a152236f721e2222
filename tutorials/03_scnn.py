# %% [markdown]
# # Tutorial 3: SCNN, the Cartesian product of non-zeros
#
# SCNN (Parashar et al., ISCA 2017) runs convolutions with *both* operands compressed: a
# pruned layer's zero weights and a ReLU layer's zero activations are never stored, never
# moved and never multiplied. Its trick is the **Cartesian product**: each processing
# element (PE) takes a vector of F non-zero weights and a vector of I non-zero activations
# and multiplies *every* weight with *every* activation (F x I products per cycle). In a
# convolution, every such product is useful: weight (k, r, s) times activation (c, y, x)
# belongs to output (k, y - r, x - s). The price is that the products land on scattered
# output positions, so they go through a crossbar into A accumulator banks, and two
# products for the same bank in the same cycle must wait for each other.
#
# This tutorial follows one step of one PE, then the bank conflicts and the barriers of one
# layer, then a whole pruned network against the paper's dense baseline DCNN (same 64 PEs,
# same 1,024 multipliers, same clock). Everything comes from the configs
# `arch_configs/scnn.yaml` and `arch_configs/dcnn.yaml` (the comparison designs are one
# flag, `scnn.design`).
#
# Run it with `python tutorials/03_scnn.py` (about half a minute). Figures go to
# `tutorials/out/` (or the folder in the environment variable `ACCEL_SIM_TUTORIAL_OUT`).

# %%
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # figures are written to files; no window needed
import matplotlib.pyplot as plt
import numpy as np

from accel_sim import REPO_ROOT, load_arch, simulate
from accel_sim.models.scnn.plan import plan as plan_layer
from accel_sim.models.scnn.plan.bank_mapping import bank_of
from accel_sim.studies.scnn_common import conv_network
from accel_sim.foundations.workload import ConvLayer, Network

OUT = Path(os.environ.get("ACCEL_SIM_TUTORIAL_OUT", REPO_ROOT / "tutorials" / "out"))
OUT.mkdir(parents=True, exist_ok=True)
arch = load_arch("scnn")
spec = arch.scnn
print(f"SCNN: {spec.pe_rows} x {spec.pe_cols} PEs, F x I = {spec.mult_f} x {spec.mult_i} multipliers each, "
      f"{spec.accumulator_banks} accumulator banks of {spec.accumulator_entries} entries")

# %% [markdown]
# ## 1. One step of one PE
#
# Take a 3x3 convolution on a 16 x 16 plane. The array cuts the plane into 8 x 8 tiles, one
# per PE (*planar tiling*), so each PE holds a 2 x 2 tile of every input channel and
# accumulates the outputs its activations can reach: its tile plus a halo of R - 1 rows and
# columns, here 4 x 4 positions per output channel. `plan_layer` gives that geometry and
# Kc, how many output channels share one accumulator buffer (A x entries = 1,024 partial
# sums).
#
# Below: the first F = 4 non-zero weights of the first channel (in the paper's order,
# R x S fastest, then K) and the first (up to I = 4) non-zero activations of PE 0: every
# product with its output coordinate and bank. The step takes as many cycles as the busiest bank has
# products.

# %%
layer = ConvLayer("demo", in_h=16, in_w=16, in_channels=8, out_channels=16, kernel_h=3, kernel_w=3,
                  pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, weight_density=0.5, input_density=0.8)
plan = plan_layer(arch, layer)
tiling = plan.tiling
print(f"accumulator region {tiling.acc_h} x {tiling.acc_w}, Kc = {tiling.kc}, groups = {tiling.out_groups}")
weights, inputs = plan.weights[0], plan.inputs[0, 0]
taps = [(k, r, s) for k in range(tiling.kc) for r in range(3) for s in range(3) if weights[k, 0, r, s] != 0][:4]
acts = [(y, x) for y in range(tiling.rows.lo[0], tiling.rows.hi[0])
        for x in range(tiling.cols.lo[0], tiling.cols.hi[0]) if inputs[0, y, x] != 0][:4]
banks = {}
print(" weight (k,r,s)  activation (y,x)  ->  output (k,y,x) local   bank")
for k, r, s in taps:
    for y, x in acts:
        oy, ox = y + 1 - r - tiling.rows.acc_lo[0], x + 1 - s - tiling.cols.acc_lo[0]
        bank = bank_of(spec, tiling, k, oy, ox)
        banks[bank] = banks.get(bank, 0) + 1
        print(f"   {(k, r, s)}       {(y, x)}        ->  {(k, int(oy), int(ox))}          {bank}")
PRODUCTS_PER_STEP = len(taps) * len(acts)
STEP_CYCLES = max(banks.values())
print(f"{PRODUCTS_PER_STEP} products on {len(banks)} banks: the step takes {STEP_CYCLES} cycle(s)")

# %% [markdown]
# Taps s and s + 1 of one filter row times activations at x and x + 1 land on the same
# output, x - s = (x + 1) - (s + 1): the *same* output, so the same bank (look for a
# repeated output coordinate in the table above). With the paper's weight order,
# neighbouring taps of one filter share a weight vector, and such same-output collisions are
# common in dense regions. A bank takes one product per cycle, so they serialise at the bank;
# the shipped config (`scatter: fifo`) queues them in a 4-entry FIFO in front of each bank so
# the multipliers can go on, a step waiting only when a FIFO would overflow (section 2 shows both).
#
# ## 2. Bank conflicts on one layer
#
# Two configuration knobs change which products meet in one step: the bank mapping
# (`linear`: address mod A; `channel_spread`: consecutive output channels A / F banks apart)
# and the weight order (`rs_then_k`, the paper's; `k_then_rs`: the F weights of a vector
# come from different output channels, so they can never hit the same output). We run a
# mid-size VGG-like layer at 60 % density with all four combinations and split the busy
# cycles into steps and conflict cycles, first with `scatter: serialise` (a step waits for its
# busiest bank: every conflict costs a cycle), then the paper's order with the shipped FIFOs.

# %%
mid = ConvLayer("mid", in_h=28, in_w=28, in_channels=32, out_channels=64, kernel_h=3, kernel_w=3,
                pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, weight_density=0.6, input_density=0.6)
combos = [(o, m) for o in ("rs_then_k", "k_then_rs") for m in ("linear", "channel_spread")]
conflicts = {}
for order, mapping in combos:
    variant = load_arch("scnn", {"scnn.weight_order": order, "scnn.bank_mapping": mapping, "scnn.scatter": "serialise"})
    result = simulate(variant, Network("n", (mid,))).layers[0]
    conflicts[(order, mapping)] = (result.cycles, result.metrics["steps"], result.metrics["bank_conflict_cycles"])
    print(f"{order:10s} {mapping:15s} {result.cycles:8,} cycles; per PE: "
          f"{result.metrics['steps'] / 64:9,.0f} steps + {result.metrics['bank_conflict_cycles'] / 64:9,.0f} conflict cycles")
fig, ax = plt.subplots(figsize=(7, 3.5))
labels = [f"{o}\n{m}" for o, m in combos]
steps = np.array([conflicts[c][1] for c in combos]) / 64
extra = np.array([conflicts[c][2] for c in combos]) / 64
ax.bar(labels, steps, label="steps (one cycle each)")
ax.bar(labels, extra, bottom=steps, label="bank-conflict cycles")
ax.set_ylabel("busy cycles per PE")
ax.legend()
fig.tight_layout()
fig.savefig(OUT / "03_bank_conflicts.png", dpi=110)
paper = conflicts[("rs_then_k", "linear")]
CONFLICT_SHARE_PAPER_ORDER = paper[2] / (paper[1] + paper[2])
SPREAD_SPEEDUP = paper[0] / conflicts[("k_then_rs", "channel_spread")][0]
print(f"paper order: {100 * CONFLICT_SHARE_PAPER_ORDER:.0f} % of busy cycles are conflicts; "
      f"k_then_rs + channel_spread is {SPREAD_SPEEDUP:.2f}x faster")
queued = simulate(load_arch("scnn"), Network("n", (mid,))).layers[0]   # shipped: scatter fifo, depth 4
FIFO_SPEEDUP = paper[0] / queued.cycles
print(f"paper order with the shipped FIFOs: {queued.cycles:,} cycles, {FIFO_SPEEDUP:.2f}x faster than serialised "
      f"({queued.metrics['bank_conflict_cycles'] / 64:,.0f} conflict cycles per PE left)")

# %% [markdown]
# ## 3. Barriers
#
# All PEs finish an output-channel group before any starts the next (the accumulators are
# then drained: halos to the neighbours, ReLU and compression in the PPU). A PE whose tile
# happens to hold fewer non-zeros waits. Planar tiling of a small plane makes this worse: a
# 7 x 7 plane on 8 x 8 PEs leaves PEs with nothing at all. `barrier_idle_fraction` is the
# share of PE-cycles spent waiting.

# %%
googlenet = conv_network("googlenet")
picked = [layer for layer in googlenet.layers if layer.name.endswith("_3x3")]
run = simulate(arch, Network("g", tuple(picked)))
frame = run.layers_frame()
IDLE_FRACTIONS = dict(zip(frame.layer, frame.barrier_idle_fraction))
for name, idle in IDLE_FRACTIONS.items():
    print(f"{name:20s} idle at barriers {100 * idle:5.1f} %")
fig, ax = plt.subplots(figsize=(7, 3.5))
ax.bar([n.replace("inception_", "") for n in frame.layer], frame.barrier_idle_fraction, label="idle at barriers")
ax.bar([n.replace("inception_", "") for n in frame.layer], frame.multiplier_utilization, alpha=0.6,
       label="multiplier utilisation")
ax.set_ylim(0, 1)
ax.legend()
fig.tight_layout()
fig.savefig(OUT / "03_barriers.png", dpi=110)

# %% [markdown]
# ## 4. A whole pruned network against DCNN
#
# AlexNet's five conv layers at Han et al.'s densities (weights 84, 38, 35, 37, 37 %;
# activations 100, 88, 52, 37, 40 %) on DCNN (dense dot product), DCNN-opt (DCNN that gates
# multipliers on zeros and compresses DRAM transfers: energy only) and SCNN.

# %%
alexnet = conv_network("alexnet")
totals = {}
per_layer = {}
for design in ("dcnn", "dcnn_opt", "scnn"):
    result = simulate(load_arch(design), alexnet)
    frame = result.layers_frame()
    per_layer[design] = frame.set_index("layer")
    totals[design] = (int(frame.cycles.sum()), float(frame.energy_pj.sum()))
    print(f"{design:9s} {totals[design][0]:10,} cycles {totals[design][1] / 1e6:8.1f} uJ")
ALEXNET_SPEEDUP = totals["dcnn"][0] / totals["scnn"][0]
ALEXNET_ENERGY_GAIN = totals["dcnn"][1] / totals["scnn"][1]
print(f"SCNN vs DCNN on AlexNet conv: {ALEXNET_SPEEDUP:.2f}x speed, {ALEXNET_ENERGY_GAIN:.2f}x energy "
      f"(paper, average of its networks: 2.7x and 2.3x)")
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
names = list(per_layer["dcnn"].index)
x = np.arange(len(names))
for i, design in enumerate(("dcnn_opt", "scnn")):
    axes[0].bar(x + 0.4 * i, per_layer["dcnn"].cycles / per_layer[design].cycles, 0.4, label=design)
    axes[1].bar(x + 0.4 * i, per_layer["dcnn"].energy_pj / per_layer[design].energy_pj, 0.4, label=design)
for ax, title in zip(axes, ("speed-up over DCNN", "energy reduction over DCNN")):
    ax.set_xticks(x + 0.2, names)
    ax.axhline(1, color="k", lw=0.8)
    ax.set_title(title)
    ax.legend()
fig.tight_layout()
fig.savefig(OUT / "03_alexnet_vs_dcnn.png", dpi=110)

# %% [markdown]
# conv1 (11 x 11 kernel, stride 4) is SCNN's worst case: with stride 4 only one weight tap
# in 16 meets a given activation, so the PE splits each channel into 16 phase classes and
# its weight and activation vectors are mostly partly filled. The later layers, where both
# operands are sparse, are where the Cartesian product pays off. The `scnn-networks` study
# (`accel-sim reproduce scnn-networks --out DIR`) runs all three of the paper's networks.
