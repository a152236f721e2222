# %% [markdown]
# # Tutorial 6: why a binary network is 32x smaller but not 32x faster
#
# A binary weight is one bit instead of a 32-bit float: a binary network's weights are 32
# times smaller. A binary dot product of 64 values is one XNOR and one popcount of a 64-bit
# word: it is tempting to expect 32 (or 64) times the speed. BMXNet (Yang et al., ACM MM 2017)
# measured about 13x for its xnor_64 GEMM, input binarization included, against an fp32 BLAS
# on a CPU, and full binary networks run far less than that faster. This tutorial measures why, in three steps:
#
# 1. **Size.** Storage arithmetic on ResNet-18 (`accel_sim.storage`): 32x per binary layer, but
#    the full-precision first (and last) layers cap the network's ratio.
# 2. **A CPU.** A 64-bit word of binary operands costs five micro-operations and its POPCNT
#    runs on one port, while the fp32 GEMM it replaces uses every SIMD lane
#    (`accel_sim.systems.cpu_simd`, Agner Fog's Haswell throughputs). The speed-up depends on how wide
#    the fp32 baseline is, and binarizing the input costs a pass over fp32 data.
# 3. **An accelerator.** The low-bit PE array (`arch_configs/lowbit.yaml`, family `lowbit`)
#    runs every layer at its own `precision:`; the fp32 layers BMXNet keeps take most of the
#    time (Amdahl's law), and the outputs are bit-exact XNOR-popcount arithmetic.
#
# Run it with `python tutorials/06_binary_is_smaller_not_faster.py` (about 10 seconds).
# Figures go to `tutorials/out/` (or the folder in `ACCEL_SIM_TUTORIAL_OUT`).

# %%
import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from accel_sim import REPO_ROOT, load_arch, load_workload
from accel_sim.systems.cpu_simd.gemm import binary_gemm, binary_word_cycles, binarize, fp32_gemm, speedup
from accel_sim.systems.cpu_simd.spec import HASWELL_AVX2, HASWELL_SSE
from accel_sim.pipeline.catalog import FAMILIES
from accel_sim.models.lowbit.functional import input_codes, layer_accumulators, weight_codes
from accel_sim.studies.bmxnet import array_table, size_table
from accel_sim.foundations.workload import GemmLayer

OUT = Path(os.environ.get("ACCEL_SIM_TUTORIAL_OUT", REPO_ROOT / "tutorials" / "out"))
OUT.mkdir(parents=True, exist_ok=True)
pd.set_option("display.width", 140)

# %% [markdown]
# ## 1. Size: 32x per layer, less for the network
#
# ResNet-18's 11.7 million weights take 44.6 MiB as fp32. Binary, each takes one bit; BMXNet
# keeps the first convolution (3 input channels: binarizing it loses too much) at full
# precision. Keeping the 512 x 1000 classifier at fp32 too costs 2 MiB, more than all the
# binary convolutions together.

# %%
RESNET18 = load_workload("resnet18")
SIZES = size_table(RESNET18)
print(SIZES)
SIZE_RATIO = dict(zip(SIZES["plan"], SIZES["ratio"]))

# %% [markdown]
# ## 2. A CPU: what one 64-bit word of binary operands costs
#
# BMXNet's GEMM: M = 64 filters, N = 12800 positions, K = 25 x 256. The xnor_64 inner loop per
# word pair is load, XOR, NOT, POPCNT, ADD: five micro-operations at four per cycle, so 1.25
# cycles for 64 binary MACs (51 per cycle per core), not 64. An SSE core does one 4-lane
# multiply and one 4-lane add per cycle: 4 fp32 MACs. With AVX2 + FMA it does two 8-lane FMAs:
# 16 fp32 MACs per cycle, and the binary kernel (still one scalar POPCNT per word) gains only
# 3.2x. Binarizing the fp32 input reads 4 bytes per value from DRAM first: the model's 5.6x
# with binarization is the case BMXNet's ~13x was measured in (the bmxnet study's README gives
# the gap's mechanism).

# %%
M, K, N = 64, 25 * 256, 12800
print(f"cycles per 64-bit word: {binary_word_cycles(HASWELL_SSE)}")
rows = []
for cpu in (HASWELL_SSE, HASWELL_AVX2):
    rows.append({"cpu": cpu.name, "fp32 MACs/cycle/core": cpu.fp_macs_per_cycle,
                 "binary MACs/cycle/core": 64 / binary_word_cycles(cpu),
                 "fp32 ms": fp32_gemm(cpu, M, K, N).cycles / cpu.clock * 1e3,
                 "binary ms": binary_gemm(cpu, M, K, N).cycles / cpu.clock * 1e3,
                 "binarize ms": binarize(cpu, K, N).cycles / cpu.clock * 1e3,
                 "speed-up": speedup(cpu, M, K, N), "with binarize": speedup(cpu, M, K, N, True)})
CPU = pd.DataFrame(rows)
print(CPU.round(2))
CPU_SPEEDUP = dict(zip(CPU["cpu"], CPU["speed-up"]))
CPU_SPEEDUP_WITH_BINARIZE = dict(zip(CPU["cpu"], CPU["with binarize"]))

# %% [markdown]
# ## 3. An accelerator with per-layer precision
#
# The low-bit array has, per PE, a 64-bit XNOR row with a popcount tree (64 binary MACs per
# cycle) and one FP32 FMA. Run ResNet-18 all fp32, then with BMXNet's plan (binary except the
# first layer, and except first and last). A binary layer is ~50x faster here (64 lanes, less
# the drain and the input binarization), but the fp32 first layer alone then dominates.

# %%
arch = load_arch("lowbit")
ARRAY = array_table(RESNET18)
print(ARRAY)
ARRAY_SPEEDUP = dict(zip(ARRAY["plan"], ARRAY["array_speedup"]))
CONV1_SHARE = float(ARRAY.set_index("plan").loc["binary, first fp32", "first_layer_share"])
print(pd.Series(ARRAY_SPEEDUP).round(1))
print(f"conv1 (fp32) takes {CONV1_SHARE:.0%} of the binary network's cycles")

fig, axes = plt.subplots(1, 2, figsize=(12, 4))
axes[0].bar(list(SIZE_RATIO), list(SIZE_RATIO.values()), color="tab:green")
axes[0].axhline(32, color="grey", linestyle=":")
axes[0].set_ylabel("ResNet-18 size reduction (x)")
axes[1].bar(list(ARRAY_SPEEDUP), list(ARRAY_SPEEDUP.values()), color="tab:blue")
axes[1].set_ylabel("ResNet-18 speed-up on the low-bit array (x)")
for ax in axes:
    ax.tick_params(axis="x", labelsize=8)
fig.tight_layout()
fig.savefig(OUT / "06_size_vs_speed.png", dpi=100)

# %% [markdown]
# ## 4. The arithmetic is real
#
# The array's functional model packs signs into 64-bit words and counts XNOR matches: its
# integer outputs equal the product of the +/-1 matrices exactly.

# %%
layer = GemmLayer("demo", m=4, k=200, n=8, precision="binary")
plan = FAMILIES["lowbit"].plan(arch, layer)
w, _ = weight_codes(layer, "binary", arch.lowbit)
x, _ = input_codes(layer, "binary", arch.lowbit)
BIT_EXACT = bool(np.array_equal(layer_accumulators(plan)[0], x[0] @ w))
print("XNOR-popcount == sign product:", BIT_EXACT)
