# %% [markdown]
# # Tutorial 2: why pruning is not (always) speed
#
# Pruning sets most of a network's weights to zero: VGG-16's conv4_2 keeps only 27 % of
# its weights after Han et al.'s magnitude pruning. It is tempting to expect the layer to
# run 1 / 0.27 = 3.7 times faster and to cost 3.7 times less energy. It does not, for two
# reasons this tutorial measures:
#
# 1. **Index overhead.** A zero that is not stored must still be *located*: a sparse
#    format stores, next to every kept value, where it is (an index, a bit in a bitmap, or
#    N:M position metadata). With 8-bit weights a 13-bit column index costs more than the
#    value itself, so a moderately pruned layer can take *more* memory than the dense one.
# 2. **The hardware's level of sparsity support.** Compressed storage saves DRAM traffic
#    but not a single cycle; gating a multiplier whose operand is zero saves its energy but
#    not its cycle; only *skipping* the zero saves time, and then the slowest PE row sets
#    the pace unless idle rows can take work from busy ones (*reassignment*).
#
# We use the storage formats of `accel_sim.foundations.compress` for part 1 and the generic PE array
# (`arch_configs/pe_array*.yaml`, family `pe_array`) for part 2: the same array, with one
# config switch, `pe_array.sparsity_support`, set to each of the five levels.
#
# Run it with `python tutorials/02_why_pruning_is_not_speed.py` (about 10 to 20 seconds).
# Figures go to `tutorials/out/` (or the folder in the environment variable
# `ACCEL_SIM_TUTORIAL_OUT`).

# %%
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # figures are written to files; no window needed
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from accel_sim import REPO_ROOT, load_arch, load_workload, simulate
from accel_sim.foundations.compress import CSR, Bitmap, DenseFormat, EIEInterleavedCSC, NOfM, magnitude_mask, nm_mask
from accel_sim.studies.sparsity_ladder import ladder_layer
from accel_sim.foundations.workload import Network

OUT = Path(os.environ.get("ACCEL_SIM_TUTORIAL_OUT", REPO_ROOT / "tutorials" / "out"))
OUT.mkdir(parents=True, exist_ok=True)
pd.set_option("display.width", 140)

# %% [markdown]
# ## 1. Index overhead: how many bits does a pruned matrix take?
#
# Take a weight matrix the size of a VGG-16 block-3 convolution seen as a matrix: 256
# filters (rows) x 1152 reduction positions (3 x 3 x 128). Prune it by magnitude to a
# range of densities and store it in four formats:
#
# - `CSR`: per non-zero a value and its column index (`ceil(log2 1152)` = 11 bits), plus a
#   pointer per row;
# - `Bitmap`: one presence bit per position, plus the non-zero values;
# - `EIEInterleavedCSC`: EIE's format: 4-bit *relative* indices (the run of zeros before
#   each value), with a filler zero entry whenever a run exceeds 15;
# - `NOfM` (2:4): two slots of every four positions, each with a 2-bit position; only for a
#   2:4-pruned matrix (density 0.5).
#
# Every format reports `storage(value_bits)`, a breakdown in bits of values, indices,
# pointers, metadata and padding. We divide by the dense size to get the *storage ratio*
# (below 1: the format saves memory).

# %%
rng = np.random.default_rng(0)
dense_weights = rng.standard_normal((256, 1152)).astype(np.float32)
DENSITIES = [1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05]
BIT_WIDTHS = [4, 8, 16]


def storage_ratios(weights: np.ndarray, value_bits: int) -> dict[str, float]:
    dense = DenseFormat.from_dense(weights).storage(value_bits).total_bits
    ratios = {
        "CSR": CSR.from_dense(weights).storage(value_bits).total_bits / dense,
        "bitmap": Bitmap.from_dense(weights).storage(value_bits).total_bits / dense,
        # EIE's matrix is outputs x inputs, compressed per column (CSC): our 256 x 1152 is already that
        "EIE (4-bit relative)": EIEInterleavedCSC.from_dense(weights).storage(value_bits).total_bits / dense,
    }
    return ratios


rows = []
for density in DENSITIES:
    pruned = np.where(magnitude_mask(dense_weights, density=density), dense_weights, 0)
    for bits in BIT_WIDTHS:
        for fmt, ratio in storage_ratios(pruned, bits).items():
            rows.append({"format": fmt, "value_bits": bits, "density": density, "storage_ratio": ratio})
two_four = np.where(nm_mask(dense_weights, n=2, m=4, axis=1), dense_weights, 0)
for bits in BIT_WIDTHS:
    dense_bits = DenseFormat.from_dense(two_four).storage(bits).total_bits
    rows.append({"format": "2:4", "value_bits": bits, "density": 0.5,
                 "storage_ratio": NOfM.from_dense(two_four, n=2, m=4, axis=1).storage(bits).total_bits / dense_bits})
storage = pd.DataFrame(rows)
print(storage[storage.value_bits == 8].pivot(index="density", columns="format", values="storage_ratio").round(3))

# %% [markdown]
# Read the 8-bit table: CSR at density 0.5 takes **more** memory than the dense matrix
# (each kept 8-bit value drags an 11-bit index along). The *break-even density*, where a
# format stops saving memory, depends on the bit width: the wider the values, the smaller
# the index is in comparison. We find it by interpolating each curve.

# %%
def break_even(frame: pd.DataFrame) -> float:
    """Density at which the storage ratio crosses 1 (linear interpolation); 0 if the format
    never saves memory at the densities we tried."""
    part = frame.sort_values("density")
    if part.storage_ratio.min() >= 1.0:
        return 0.0
    return float(np.interp(1.0, part.storage_ratio.to_numpy(), part.density.to_numpy()))


BREAK_EVEN = {(fmt, bits): break_even(part) for (fmt, bits), part in
              storage[storage.format != "2:4"].groupby(["format", "value_bits"])}
for (fmt, bits), density in sorted(BREAK_EVEN.items()):
    verdict = f"saves memory below density {density:.2f}" if density else "never saves memory down to 0.05"
    print(f"{fmt:22s} {bits:2d}-bit values: {verdict}")
CSR_BREAK_EVEN_8BIT = BREAK_EVEN[("CSR", 8)]
NM_RATIO_8BIT = float(storage[(storage.format == "2:4") & (storage.value_bits == 8)].storage_ratio.iloc[0])
print(f"2:4 at 8 bits: {NM_RATIO_8BIT:.3f} of the dense size (20 of 32 bits per group of 4)")

fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
for ax, bits in zip(axes, BIT_WIDTHS):
    part = storage[storage.value_bits == bits]
    for fmt, curve in part[part.format != "2:4"].groupby("format"):
        ax.plot(curve.density, curve.storage_ratio, "o-", label=fmt)
    nm = part[part.format == "2:4"]
    ax.plot(nm.density, nm.storage_ratio, "k*", markersize=12, label="2:4")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.invert_xaxis()
    ax.set_title(f"{bits}-bit values")
    ax.set_xlabel("weight density")
axes[0].set_ylabel("storage / dense storage")
axes[0].legend()
fig.suptitle("Index overhead: a sparse format saves memory only below its break-even density")
fig.tight_layout()
fig.savefig(OUT / "02_index_overhead.png", dpi=110)
plt.close(fig)

# %% [markdown]
# ## 2. The sparsity-support ladder on one layer
#
# Now the hardware. `arch_configs/pe_array.yaml` is a 16 x 16 output-stationary PE array:
# each PE row accumulates one filter for 16 output pixels, consuming 4 weights per cycle.
# Its only switch that matters here is `pe_array.sparsity_support`:
#
# | level | weights in DRAM / SRAM | zeros multiplied? | cycles |
# |---|---|---|---|
# | `none` | dense | yes | dense |
# | `memory` | compressed (CSR) | yes (decompressed before the array) | dense |
# | `gating` | compressed | gated: no energy, but the cycle is spent | dense |
# | `skipping` | compressed | no: each row's decoder feeds only non-zeros | the slowest row's work |
# | `reassignment` | compressed | no, and idle rows take work of busy rows (windows of 4) | about total work / rows |
#
# We take VGG-16's conv5_1 (14 x 14 x 512 -> 512, input density 0.34) from the shipped
# workload, prune its weights to a few densities, unstructured (the largest weights kept
# anywhere) or by whole filters ("filter" pruning, the pruned filters kept in the layer as zeros), and run all five
# levels.

# %%
vgg = load_workload("vgg16")
conv5_1 = next(layer for layer in vgg.layers if layer.name == "conv5_1")
LEVELS = ["none", "memory", "gating", "skipping", "reassignment"]
points = []
for pattern in ("unstructured", "filter"):
    for density in (1.0, 0.5, 0.2, 0.1):
        layer = ladder_layer(conv5_1, pattern, density)
        for level in LEVELS:
            arch = load_arch("pe_array", {"pe_array.sparsity_support": level})
            run = simulate(arch, Network("one layer", (layer,)))
            result = run.layers[0]
            points.append({"support": level, "pattern": pattern, "density": density, "cycles": result.cycles,
                           "energy_pj": run.energy[0].total_pj, "dram_read_bytes": result.dram_read_bytes,
                           "macs_issued": result.macs_issued, "macs_gated": result.metrics["macs_gated"],
                           "macs_skipped": result.metrics["macs_skipped"]})
ladder = pd.DataFrame(points)
print(ladder[ladder.pattern == "unstructured"].pivot(index="density", columns="support", values="cycles")[LEVELS])

# %% [markdown]
# Three things to see in the cycle table:
#
# - `none`, `memory` and `gating` have *identical* cycles at every density: storing zeros
#   compactly or gating their multipliers does not make the array finish earlier.
# - `skipping` falls with density, but not quite as 1 / density: each row must still decode
#   its chunks, and the tile waits for its slowest row.
# - At density 1.0, `skipping` is slightly *slower* than `none`: the decoder's latency is
#   paid for nothing.
#
# The accounting is exact: every dense MAC is issued, gated or skipped.

# %%
check = ladder.assign(total=ladder.macs_issued + ladder.macs_gated + ladder.macs_skipped)
assert (check.total == conv5_1.macs).all()
at = ladder.set_index(["pattern", "density", "support"])
SKIP_SPEEDUP_02 = at.cycles[("unstructured", 0.2, "none")] / at.cycles[("unstructured", 0.2, "skipping")]
GATING_ENERGY_SAVING_02 = 1 - at.energy_pj[("unstructured", 0.2, "gating")] / at.energy_pj[("unstructured", 0.2, "memory")]
FILTER_SKIP_SPEEDUP_01 = at.cycles[("filter", 0.1, "none")] / at.cycles[("filter", 0.1, "skipping")]
FILTER_REASSIGN_SPEEDUP_01 = at.cycles[("filter", 0.1, "none")] / at.cycles[("filter", 0.1, "reassignment")]
MEMORY_DRAM_RATIO_05 = at.dram_read_bytes[("unstructured", 0.5, "memory")] / at.dram_read_bytes[("unstructured", 0.5, "none")]
print(f"unstructured, density 0.2: skipping is {SKIP_SPEEDUP_02:.2f}x faster than none (ideal 5x); "
      f"gating saves {GATING_ENERGY_SAVING_02:.0%} of memory-level energy at the same cycles")
print(f"unstructured, density 0.5: compressed (CSR) weights make DRAM reads {MEMORY_DRAM_RATIO_05:.2f}x the dense level's")
print(f"filter pruning, density 0.1: skipping {FILTER_SKIP_SPEEDUP_01:.2f}x, reassignment "
      f"{FILTER_REASSIGN_SPEEDUP_01:.2f}x (ideal 10x)")

# %% [markdown]
# Filter pruning is the surprise. Removing whole filters is "structured" and hardware
# friendly, yet `skipping` barely helps: a pruned filter leaves its PE row idle with nothing
# to skip *to*, while the surviving rows of the same tile do their full work. The tile takes
# as long as before. `reassignment` lets the idle rows take chunks of the busy rows' work
# (through a crossbar whose transfers cost energy) and recovers most of the speed-up. (Here
# the pruned filters stay in the layer as zeros, `compact: false`, so the hardware must cope
# alone. By default accel_sim drops them from the layer, and their inputs from the next
# layer, as a compiler would: then every family, dense ones included, runs the smaller
# layer; `accel-sim reproduce pruning-granularity` compares the two.)

# %%
fig, axes = plt.subplots(1, 3, figsize=(14, 4))
for ax, pattern in zip(axes[:2], ("unstructured", "filter")):
    part = ladder[ladder.pattern == pattern]
    for level in LEVELS:
        curve = part[part.support == level]
        ax.plot(curve.density, curve.cycles, "o-", label=level)
    ax.set_xscale("log")
    ax.invert_xaxis()
    ax.set_xlabel(f"weight density ({pattern})")
    ax.set_ylabel("cycles")
    ax.set_title(f"{pattern} pruning")
axes[0].legend(title="sparsity support")
part = ladder[ladder.pattern == "unstructured"]
for level in LEVELS:
    curve = part[part.support == level]
    axes[2].plot(curve.density, curve.energy_pj / 1e6, "o-", label=level)
axes[2].set_xscale("log")
axes[2].invert_xaxis()
axes[2].set_xlabel("weight density (unstructured)")
axes[2].set_ylabel("energy (uJ)")
axes[2].set_title("energy")
fig.suptitle("VGG-16 conv5_1 on one PE array, five levels of sparsity support")
fig.tight_layout()
fig.savefig(OUT / "02_sparsity_ladder.png", dpi=110)
plt.close(fig)

# %% [markdown]
# ## What to remember
#
# - A sparse format pays for every kept value with index bits; with 8-bit values a CSR index
#   costs more than the value, and the format saves memory only below about 40 % density.
# - Saving memory, saving energy and saving time are three different levels of hardware
#   support. Only skipping saves time, and only as far as the work is balanced.
# - The full ladder on VGG-16 conv4_2, with 2:4 and 4 x 4 block pruning as well:
#   `accel-sim reproduce sparsity-ladder --out reports/sparsity-ladder`.
