"""The H100 SXM5 80GB config against its datasheet's peaks (hopper_h100.yaml cites each number): the derived
clock and per-tensor-core rates give back the published dense FP16 and FP8 peaks, and the memory, L2 and NVLink
figures are the datasheet's."""
from __future__ import annotations

import pytest

from accel_sim.pipeline.catalog import load_arch

H100 = load_arch("hopper_h100")


def peak_flops(macs_per_cycle: int) -> float:
    tc = H100.tensor_core
    return 2 * tc.sms * tc.tensor_cores_per_sm * macs_per_cycle * H100.clock


def test_dense_fp16_and_fp8_peaks_are_the_datasheets():
    assert peak_flops(H100.tensor_core.dense_macs_per_cycle) == pytest.approx(1979e12 / 2, rel=1e-3)   # 1,979 sparse
    assert peak_flops(H100.tensor_core.fp8_macs_per_cycle) == pytest.approx(3958e12 / 2, rel=1e-3)    # 3,958 sparse


def test_memory_l2_and_link_are_the_datasheets():
    tc = H100.tensor_core
    assert tc.dram_bandwidth * H100.clock == pytest.approx(3.35e12, rel=1e-4)
    assert tc.l2_size == 50 * 2**20 and tc.sms == 132
    assert H100.memory_capacity == 80 * 2**30
    assert H100.device_link_bandwidth == 450e9                        # 900 GB/s per GPU, both directions


def test_the_serving_variant_only_adds_the_serving_kernels():
    serving = load_arch("hopper_h100_serving")
    assert (serving.tensor_core.split_k_limit, serving.tensor_core.batched_split_limit) == (7, 128)
    assert serving.tensor_core.dram_bandwidth == H100.tensor_core.dram_bandwidth and serving.clock == H100.clock
