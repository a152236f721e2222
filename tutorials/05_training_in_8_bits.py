# %% [markdown]
# # Tutorial 5: training in 8 bits
#
# Training a neural network needs numbers with a wide range: weights around 0.1, activations
# up to tens, gradients of 10^-4 and smaller. Float32 covers all of that, but a 32-bit float
# multiplier is large and hungry. A **fixed-point** number is just an integer with an agreed
# **point position**: with `b` bits and `f` fraction bits, the integer `v` means `v / 2^f`.
# Eight bits give only 256 values, so *where* the point sits decides everything: too far right
# and large values **saturate** (they are clipped to the largest representable value), too far
# left and small values **round to zero**.
#
# **Dynamic fixed point** gives every tensor (each layer's weights, activations, gradients) its
# own point and moves it while training runs. Fujitsu's Deep Learning Unit (DLU) does this in
# hardware: next to each datapath output sits a **statistics block** that, for every result,
# finds the position of the most significant bit that differs from the sign bit and counts it
# in a histogram; between iterations software reads the histograms and picks the next point.
#
# In this tutorial you will
#
# 1. quantize a tensor by hand and see saturation and rounding,
# 2. look at the statistics block's histogram and at three rules that turn it into a point,
# 3. watch the statistics hardware during a real training run (scikit-learn's handwritten
#    digits, a 64-300-100-10 network) in 8-bit dynamic fixed point,
# 4. compare accuracy, cycles and energy of float32, 16-bit and 8-bit training, and a
#    static (never updated) 8-bit point.
#
# Run it with `python tutorials/05_training_in_8_bits.py` (10 to 60 seconds). Figures go to
# `tutorials/out/` (or the folder in the environment variable `ACCEL_SIM_TUTORIAL_OUT`).
# It needs scikit-learn (the digits ship inside it, no download): from the repository
# folder, `python -m pip install -e ".[digits]"` (the README's `.[test]` install includes it).

# %%
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # figures are written to files; no window needed
import matplotlib.pyplot as plt
import numpy as np

from accel_sim import REPO_ROOT, load_arch
from accel_sim.foundations.compress.quantization.leading_bit_statistics import (
    PointRange,
    accumulator_levels,
    leading_bit_histogram,
    next_point,
)
from accel_sim.systems.nn.digits import load_digits_split
from accel_sim.systems.nn.dlu_training import train_on_dlu
from accel_sim.systems.nn.dynamic_fixed_point import DynamicFixedPointUnit, UnitSettings
from accel_sim.systems.nn.training import Schedule

OUT = Path(os.environ.get("ACCEL_SIM_TUTORIAL_OUT", REPO_ROOT / "tutorials" / "out"))
OUT.mkdir(parents=True, exist_ok=True)

# %% [markdown]
# ## 1. One tensor, three point positions
#
# The `DynamicFixedPointUnit` is the simulated DLU's number unit. We give it a tensor under a
# name and it returns the tensor as the hardware would hold it. Here we fix the point by hand
# (`rerun_threshold=-1` switches off the automatic correction you will meet in part 3) and try
# three positions for the same 8-bit tensor.

# %%
rng = np.random.default_rng(0)
tensor = rng.normal(0, 0.5, 10_000)  # values of order 0.5, a few beyond 1.5
SATURATED = {}
for f in (2, 5, 7):
    unit = DynamicFixedPointUnit(UnitSettings(bits=8, initial_point=f, rerun_threshold=-1))
    q = unit.quantize("t", tensor)
    SATURATED[f] = unit.overflow_rate
    print(f"f = {f}: step {2.0 ** -f:.4f}, range +-{2.0 ** (7 - f):.2f}, "
          f"saturated {100 * unit.overflow_rate:.2f} %, rounded to zero {100 * np.mean(q == 0):.1f} %, "
          f"mean error {np.mean(np.abs(q - tensor)):.4f}")

# %% [markdown]
# With `f = 2` the step is 0.25, so most values become 0 or +-0.25; with `f = 7` (all bits but
# the sign are fraction bits) the range is only +-1 and every value beyond saturates. The best
# point is in between, and it is different for every tensor, and it changes while the network
# trains. That is what the statistics hardware is for.
#
# ## 2. The statistics block and the update rules
#
# The block sees each result in the wide accumulator (32 bits) at the current point and finds
# its **leading-bit position**: the leftmost 1 of a positive number, the leftmost 0 of a
# negative one. A result fits an 8-bit word exactly when that position is at most 6 (bit 7 is
# the sign). The histogram of positions is all software gets to see.

# %%
levels = accumulator_levels(tensor, 4, 32)           # observed at f = 4
histogram = leading_bit_histogram(levels, 32)
positions = np.arange(histogram.size) - 1             # bucket i counts position i - 1
for p, count in zip(positions, histogram):
    if count:
        print(f"position {p:2d}: {count:5d} results {'(does not fit 8 bits)' if p > 6 else ''}")
RULE_POINTS = {rule: next_point(histogram, bits=8, fraction_bits=4, rule=rule, point_range=PointRange(-16, 40))
               for rule in ("overflow", "max", "percentile")}
print("next point from the histogram:", RULE_POINTS)

# %% [markdown]
# Three published rules read the same histogram:
#
# * **overflow** (Courbariaux et al. 2014): if more than 0.01 % of results would saturate, give
#   the integer part one more bit; if one bit less would still be safe, take it away; it moves
#   one bit per update.
# * **max** (Ristretto): move the point so the largest observed value just fits.
# * **percentile**: the finest point at which 99.99 % of the results fit (the rest saturate).
#
# Here all values fit at f = 4 (the largest position is 4, two below the top of the word), so
# the overflow rule takes one fraction bit more (f = 5), while max and percentile jump straight
# to f = 6, where the largest value just fits.
#
# ## 3. Watching a real training run in 8 bits
#
# Now the real thing. `train_on_dlu` trains the digits classifier with **every** tensor (input,
# weights, biases, pre-activations, gradients, updates) going through the unit, configured from
# the `dlu:` section of `arch_configs/dlu.yaml`. We pick 8-bit integers with stochastic rounding
# (an update smaller than half a step survives on average instead of being rounded away) and ask
# the unit to record the histogram of two tensors at every step: `w1`, the first layer's
# weights, and `da2`, the gradient flowing back into the second hidden layer.

# %%
EPOCHS = 8
schedule = Schedule(epochs=EPOCHS)
data = load_digits_split()
arch8 = load_arch("dlu", {"dlu.data_type": "int8", "dlu.rounding": "stochastic"})
run8 = train_on_dlu(arch8, data, schedule, watch=("w1", "da2"))
unit = run8.unit
POINTS = {name: unit.tensors[name].points for name in ("w1", "da2")}
print(f"8-bit DFP: test accuracy {100 * run8.run.test_accuracy:.1f} %, "
      f"{100 * unit.overflow_rate:.3f} % of values saturated, {run8.run.steps} steps")
print("point of w1 at the first / last step:", POINTS["w1"][0], POINTS["w1"][-1])
print("point of da2 at the first / last step:", POINTS["da2"][0], POINTS["da2"][-1])

fig, axes = plt.subplots(1, 2, figsize=(12, 4))
for ax, name in zip(axes, ("w1", "da2")):
    snapshots = unit.snapshots[name]
    for index in np.unique(np.linspace(0, len(snapshots) - 1, 4).astype(int)):
        step, point, hist = snapshots[index]
        ax.step(np.arange(hist.size) - 1 - point, hist / hist.sum(), where="mid", label=f"step {step}, f = {point}")
    ax.set_xlabel("leading-bit position as a power of two of the value")
    ax.set_ylabel("fraction of results")
    ax.set_xlim(-28, 4)
    ax.set_title(f"statistics histogram of {name}")
    ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(OUT / "05_histograms.png", dpi=100)
plt.close(fig)

fig, ax = plt.subplots(figsize=(7, 4))
for name in ("w1", "da2"):
    ax.plot(POINTS[name], label=name)
ax.set_xlabel("training step")
ax.set_ylabel("fraction bits f")
ax.set_title("point positions chosen by the statistics hardware")
ax.legend()
fig.tight_layout()
fig.savefig(OUT / "05_points.png", dpi=100)
plt.close(fig)

# %% [markdown]
# In `05_histograms.png` (x axis: the power of two of each result's leading bit) the weights
# stay in place and their point does not move, while the gradient `da2` shrinks as the
# network learns. In `05_points.png` its point follows, several bits over the run: the
# hardware spends the 8 bits where the values are. The tall leftmost step of each `da2` curve
# is the bucket of results that round to 0 or -1: most of this heavy-tailed gradient lies
# below the smallest step, because the rules place the point so that the *largest* values fit.
# The few large gradients carry the learning; 8 bits cannot hold both ends. The first step of every
# tensor is a **re-run**: the initial point (f = 2) is far off, the histogram says so, and the
# operation is repeated at once with the corrected point (counted in the cycles).
#
# ## 4. Accuracy, cycles and energy per format
#
# Same seed, same schedule; float32 on the DLU's FP32 datapath, 16-bit dynamic fixed point with
# round-to-nearest, the 8-bit run above, and a **static** 8-bit point: each tensor's point set
# once from its first statistics and then frozen.

# %%
runs = {
    "float32": train_on_dlu(load_arch("dlu", {"dlu.data_type": "fp32"}), data, schedule),
    "dfp16": train_on_dlu(load_arch("dlu", {"dlu.data_type": "int16"}), data, schedule),
    "dfp8": run8,
    "static8": train_on_dlu(arch8, data, schedule, static=True),
}
ACCURACY = {name: r.run.test_accuracy for name, r in runs.items()}
ENERGY_VS_FP32 = {name: r.step.energy_pj / runs["float32"].step.energy_pj for name, r in runs.items()}
CYCLES_VS_FP32 = {name: r.step.cycles / runs["float32"].step.cycles for name, r in runs.items()}
for name, r in runs.items():
    print(f"{name:8s} accuracy {100 * ACCURACY[name]:5.1f} %  saturated {100 * r.overflow_rate:6.3f} %  "
          f"{r.step.cycles:8.0f} cycles/step ({CYCLES_VS_FP32[name]:.2f}x)  "
          f"{r.step.energy_pj / 1e6:6.1f} uJ/step ({ENERGY_VS_FP32[name]:.2f}x)")

fig, axes = plt.subplots(1, 2, figsize=(11, 4))
names = list(runs)
axes[0].bar(names, [100 * ACCURACY[n] for n in names], color="tab:blue")
axes[0].set_ylabel("test accuracy (%)")
axes[0].set_ylim(0, 100)
axes[1].bar(names, [runs[n].step.energy_pj / 1e6 for n in names], color="tab:orange")
axes[1].set_ylabel("energy per training step (uJ)")
fig.tight_layout()
fig.savefig(OUT / "05_accuracy_energy.png", dpi=100)
plt.close(fig)

# %% [markdown]
# 16-bit and 8-bit dynamic fixed point land within a few test images (each is 0.19 %) of
# float32 on this short schedule (the `dfp-training` study runs the full one), at a fraction of the
# cycles (a 16-bit lane does two operations where an FP32 lane does one, an 8-bit lane four)
# and of the energy. The static point collapses: the weights and activations grow past the
# range fixed at the first step and saturate, which is the reason the DLU measures the data
# all the time. To go further: `accel-sim reproduce dfp-training --out DIR` runs the full
# schedule with every update rule, and `accel-sim reproduce precision-energy --out DIR` breaks
# the energy down per MAC for FP32 down to binary.
