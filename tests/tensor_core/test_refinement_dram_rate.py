"""A kernel's DRAM rate from its bytes in flight (``KernelTile.dram_rate: in_flight`` with ``dram_read_rates``):
tinygemm's int4 GEMV (``int4_kernels`` of ampere_a100_80gb) in waves of 108 CTAs (432 blocks), its partial last wave
read at the rate its bytes in flight reach on gpu-benches' read-stream table. Counted by hand, fast == reference."""
from __future__ import annotations

import dataclasses

import pytest

from accel_sim import load_arch
from accel_sim.foundations.workload.layer import GemmLayer
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.models.tensor_core.plan.dram_rate import round_rate
from accel_sim.models.tensor_core.spec import DramRatePoint, KernelTile
from tests.tensor_core.archs import a100

A100_80GB = load_arch("ampere_a100_80gb")
TINYGEMM = A100_80GB.tensor_core.int4_kernels[0]


def _with_rate(rate: str):
    tile = dataclasses.replace(TINYGEMM, dram_rate=rate)
    return dataclasses.replace(A100_80GB, tensor_core=dataclasses.replace(A100_80GB.tensor_core, int4_kernels=(tile,)))


@pytest.mark.parametrize("count", [FAMILY.fast, FAMILY.reference])
def test_partial_wave_by_hand(count):
    # n = 3584 output features = 448 tinygemm blocks: a full wave of 432 and a partial one of 16, i.e. 112 CTAs of 32
    # rows (an SM's 4 blocks), waves of 108 and 4. K = 1024: one stage. An A row's stage: 1024 x 4 bits + 16 groups
    # of G = 64 x (bf16 scale + zero) = 512 + 64 = 576 B; a CTA's 32 rows 18,432 B.
    # Full wave: 108 x 18,432 B + the activations' 2,048 B (read once: A and B fit the L2) = 1,992,704 B, 18,451 B
    # per SM, above the table's last point (16,384 B): 1254.6 B/clk -> ceil(1588.3) = 1589 cycles.
    # Partial wave: 4 x 18,432 = 73,728 B, 682.67 B per SM, between lines 2 and 3 of gpu-stream/a100_80.txt (512 B:
    # 60.3 B/clk, 1,024 B: 118.4): 60.3 + (682.67 - 512) / 512 x 58.1 = 79.667 B/clk -> ceil(925.5) = 926 cycles.
    # At the sustained rate it would take ceil(73,728 / 1254.6) = 59, under the SM port's 320 (32 x 576 + 2,048 B
    # over 64 B/clk), which then set the wave's load: the in-flight rate adds 926 - 320 = 606 cycles to the kernel.
    layer = GemmLayer("gemv", m=1, k=1024, n=3584, quantized_weight_bits=4, quant_group_size=64)
    slow, sustained = (count(FAMILY.plan(_with_rate(rate), layer), None) for rate in ("in_flight", "sustained"))
    assert (slow.waves, slow.ctas, slow.dram_a * 4 // 8, slow.dram_b * 16 // 8) == (2, 112, 1_835_008, 2_048)
    assert slow.dram_busy_cycles == 1589 + 926
    assert sustained.dram_busy_cycles == 1589 + 59
    assert slow.cycles - sustained.cycles == 926 - 320


def test_round_rate_reads_the_table():
    spec = A100_80GB.tensor_core
    per_sm = lambda b: b * 8 * spec.sms   # noqa: E731 - bits of a round with b bytes per SM
    assert round_rate(spec, TINYGEMM, per_sm(16_384)) == spec.dram_bandwidth == 1254.6      # line 33
    assert round_rate(spec, TINYGEMM, per_sm(40_000)) == spec.dram_bandwidth               # above the last point
    assert round_rate(spec, TINYGEMM, per_sm(10_240)) == pytest.approx(1308 / 1.41, abs=0.05)   # line 21
    assert round_rate(spec, TINYGEMM, per_sm(256)) == pytest.approx(60.3 / 2)              # through zero below line 2
    assert round_rate(spec, spec.kernels[0], per_sm(256)) == spec.dram_bandwidth            # a 'sustained' kernel
    assert round_rate(spec, TINYGEMM, 0) == spec.dram_bandwidth       # a round of no bytes: a positive rate, no time
    assert round_rate(spec, TINYGEMM, per_sm(1)) == pytest.approx(60.3 / 512)   # one byte per SM: Little's law
    capped = dataclasses.replace(spec, dram_read_rates=(DramRatePoint(1_000, 2_000.0),))
    assert round_rate(capped, TINYGEMM, per_sm(1_000)) == spec.dram_bandwidth               # never above it


def test_int4_layers_run_tinygemm_and_others_do_not():
    int4 = GemmLayer("q", m=1, k=4096, n=4096, quantized_weight_bits=4, quant_group_size=64)
    int8 = GemmLayer("q", m=1, k=4096, n=4096, quantized_weight_bits=8)
    assert FAMILY.plan(A100_80GB, int4).kernels == (TINYGEMM,)
    assert TINYGEMM not in FAMILY.plan(A100_80GB, int8).kernels
    assert TINYGEMM not in FAMILY.plan(load_arch("ampere_a100_80gb_serving"), int4).kernels   # TensorRT-LLM's own
    assert TINYGEMM not in FAMILY.plan(load_arch("ampere_a100"), int4).kernels


SMALL = KernelTile(m=32, n=16, k=64, warp_m=16, warp_n=8, stages=1, dram_rate="in_flight")
RATES = (DramRatePoint(256, 20.0), DramRatePoint(1024, 60.0), DramRatePoint(4096, 90.0))


@pytest.mark.parametrize("layer", [
    GemmLayer("g", m=1, k=224, n=200, quantized_weight_bits=4, quant_group_size=32),     # a short last stage, edge rows
    GemmLayer("g", m=3, k=128, n=352, quantized_weight_bits=4, quant_group_size=64),
    GemmLayer("g", m=1, k=128, n=96, quantized_weight_bits=8),                           # not int4: the kernels list
])
def test_fast_and_reference_agree(layer):
    arch = a100(sms=3, int4_kernels=(SMALL,), dram_read_rates=RATES, dram_bandwidth=100.0)
    assert FAMILY.refinement(arch, layer) == []


def test_fast_and_reference_agree_on_the_shipped_table():
    # 112 CTAs of 3 stages (the last 768 of K: fewer bytes in flight), G = 32
    layer = GemmLayer("g", m=1, k=2816, n=3584, quantized_weight_bits=4, quant_group_size=32)
    assert FAMILY.refinement(A100_80GB, layer) == []
