"""The CPU SIMD model's GEMM arithmetic derived by hand, and the bmxnet study's bars
(binary / fp32 GEMM speed-up within 30 % of BMXNet's ~13x, ResNet-18 compression within 10 % of
29x), read from the comparison.csv that ``accel-sim reproduce bmxnet`` writes."""
import dataclasses

import pandas as pd
import pytest

from accel_sim.cli.main import main
from accel_sim.systems.cpu_simd.gemm import binarize, binary_gemm, binary_word_cycles, fp32_gemm, speedup
from accel_sim.systems.cpu_simd.spec import HASWELL_AVX2, HASWELL_SSE

M, K, N = 64, 25 * 256, 12800


def test_word_cost_is_the_tightest_limit():
    """5 micro-operations at 4 per cycle (1.25) beat POPCNT's 1 per cycle, 4 ALU ops on 4 ports and
    2 loads on 2 ports; a CPU with one POPCNT every 2 cycles is POPCNT-bound."""
    assert binary_word_cycles(HASWELL_SSE) == 1.25
    assert binary_word_cycles(dataclasses.replace(HASWELL_SSE, popcnt_per_cycle=0.5)) == 2.0
    assert binary_word_cycles(dataclasses.replace(HASWELL_SSE, issue_width=6)) == 1.0


def test_fp32_macs_per_cycle():
    assert HASWELL_SSE.fp_macs_per_cycle == 4        # min(2 MULPS, 1 ADDPS) x 4 lanes
    assert HASWELL_AVX2.fp_macs_per_cycle == 16      # 2 FMAs x 8 lanes


def test_gemm_cycles_by_hand():
    assert fp32_gemm(HASWELL_SSE, M, K, N).compute_cycles == M * K * N / (4 * 4)
    assert binary_gemm(HASWELL_SSE, M, K, N).compute_cycles == M * (K // 64) * N * 1.25 / 4
    assert speedup(HASWELL_SSE, M, K, N) == pytest.approx(64 / 1.25 / 4)
    assert speedup(HASWELL_AVX2, M, K, N) == pytest.approx(64 / 1.25 / 16)


def test_binarizing_the_input_is_memory_bound():
    """K x N fp32 values read once at 25.6 GB/s outlast the compare / move-mask work."""
    step = binarize(HASWELL_SSE, K, N)
    assert step.memory_cycles > step.compute_cycles
    assert step.memory_cycles == pytest.approx((K * N * 4 + K // 64 * N * 8) / 25.6e9 * 2.5e9)
    assert speedup(HASWELL_SSE, M, K, N, with_binarize=True) < speedup(HASWELL_SSE, M, K, N)


def test_bmxnet_study_bars(tmp_path):
    out = tmp_path / "bmxnet"
    assert main(["reproduce", "bmxnet", "--out", str(out)]) == 0
    rows = pd.read_csv(out / "comparison.csv")
    rows = rows.set_index(rows["quantity"].str.split(" \\(gap").str[0])
    gemm = rows.loc["binary / fp32 GEMM speed-up with the fp32 input binarized first (the condition of BMXNet's "
                    "~13x), M=64 N=12800 K=25C (C=256), Haswell, fp32 on SSE"]
    assert gemm.published == 13 and gemm.simulated == pytest.approx(5.6, abs=0.1)   # the gap, in the README
    cached = rows[rows.index.str.contains("binarized at its compute cost alone")].iloc[0]
    assert cached.simulated == pytest.approx(64 * 6400 * 12800 / 16 / (64 * 100 * 12800 * 1.25 / 4 + 6400 * 12800 / 4 / 4))
    imagenet_dram = rows[rows.index.str.contains("ResNet-18 for ImageNet .*DRAM bytes", regex=True)].iloc[0]
    assert "25x allows" in imagenet_dram.quantity and imagenet_dram.simulated < 25
    size = rows.loc["ResNet-18 for CIFAR-10, binary model size, first and last layers fp32"]
    assert size.published == 1.5 and abs(size.relative_error) <= 0.10 == size.tolerance
    full = rows.loc["ResNet-18 for CIFAR-10, full-precision model size (fp32 weights)"]
    assert abs(full.relative_error) <= 0.10
    assert (out / "figure.png").stat().st_size > 10_000
    array = pd.read_csv(out / "results.csv").dropna(subset=["array_speedup"]).set_index(["network", "plan"])
    imagenet = array.loc["resnet18"]
    assert 1 < imagenet.loc["binary, first fp32", "array_speedup"] < 29 < imagenet.loc["binary, first fp32", "ratio"]
    assert imagenet.loc["binary, first fp32", "first_layer_share"] > 0.5
    # the lowbit DRAM bar: binary ResNet-18 (CIFAR-10, first and last layers fp32) moves <= 1/25 of fp32's bytes
    assert array.loc[("resnet18_cifar10", "binary, first + last fp32"), "dram_saving"] >= 25
    # ImageNet at batch 1: the stem pool in conv1's output stage writes the 56 x 56 pooled fp32 map; conv1's input
    # (224 x 224 x 3 fp32) is streamed once with its weights (7 x 7 x 3 x 64 fp32) resident; every weight once, the
    # image and the pooled map exceed what 25x allows (the hand count in the comparison row and the README)
    ends = imagenet.loc["binary, first + last fp32"]
    assert ends.first_layer_output_bytes == 56 * 56 * 64 * 4 and ends.last_layer_dram_bytes == (512 * 1000 + 512 + 1000) * 4
    assert ends.first_layer_dram_bytes == 224 * 224 * 3 * 4 + 7 * 7 * 3 * 64 * 4 + 56 * 56 * 64 * 4
    assert ends.dram_saving < 25 < ends.fp32_ends_cap
    floor = ends.bits / 8 + ends.first_layer_input_bytes + 2 * ends.first_layer_output_bytes
    assert floor > imagenet.loc["fp32", "dram_bytes"] / 25 > ends.dram_bytes - floor > 0
    # at batch 8 each weight read serves 8 images, the stem's fp32 traffic does not shrink
    batched = pd.read_csv(out / "results.csv").query("table == 'batch'").set_index("plan")
    assert ends.dram_saving < batched.loc["binary, first + last fp32", "dram_saving"] < 25
    assert batched.loc["binary, first + last fp32", "first_layer_output_bytes"] == 8 * 56 * 56 * 64 * 4
