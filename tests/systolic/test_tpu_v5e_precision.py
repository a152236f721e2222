"""The TPU v5e-like pair (arch_configs/tpu_v5e_like_bf16.yaml, tpu_v5e_like_int8.yaml): the same 128 x 512 array
(four 128 x 128 MXUs), clock and HBM; int8 packs two plain int8 elements (systolic.block_format: int8, no block
scales) per 16-bit PE word (systolic.elements_per_pe: 2).

Checked: the peaks are the published ones (Cloud TPU v5e page: 197 TFLOPs bf16, 393 TOPs int8 per chip) within
the rounding of the derived 1.5 GHz clock; int8 takes half the cycles of bf16 on a compute-bound GEMM and on a
weight-stream-bound one, and the same on an output-bound one (outputs stay 16-bit words); a hand count of one
small layer; fast == reference on it."""
from __future__ import annotations

import dataclasses

import pytest

from accel_sim import load_arch
from accel_sim.foundations.workload.layer import GemmLayer
from accel_sim.models.systolic.family import FAMILY

BF16, INT8 = "tpu_v5e_like_bf16", "tpu_v5e_like_int8"
PUBLISHED_PEAK = {BF16: 197e12, INT8: 393e12}     # ops per second per chip, docs.cloud.google.com/tpu/docs/v5e
OPS_PER_MAC = 2


def run(arch, layer):
    plan = FAMILY.plan(arch, layer)
    return plan, FAMILY.fast(plan)


@pytest.mark.parametrize("name", [BF16, INT8])
def test_peak_is_the_published_one(name):
    arch = load_arch(name)
    plan, counters = run(arch, GemmLayer("g", m=8, k=256, n=512))
    peak = FAMILY.account(plan, counters).peak_macs_per_cycle * OPS_PER_MAC * arch.clock
    assert peak == pytest.approx(PUBLISHED_PEAK[name], rel=0.003)      # 196.6 T / 393.2 T at 1.5 GHz
    assert arch.memory_capacity == 16 * 2**30 and arch.dram.bandwidth * arch.clock == pytest.approx(819e9)


def test_only_the_precision_differs():
    bf16, int8 = load_arch(BF16), load_arch(INT8)
    assert (int8.systolic.block_format, int8.systolic.elements_per_pe) == ("int8", 2)
    same = dataclasses.replace(int8, name=bf16.name, description=bf16.description,
                               systolic=dataclasses.replace(int8.systolic, block_format="none", elements_per_pe=1))
    assert same == bf16


def test_hand_count_small_layer():
    """m = 64, k = 256, n = 512 on the 128 x 512 array, 273 16-bit words per cycle per DRAM stream (546 B).
    bf16: k on 128 rows is 2 row folds x 1 column fold; a WS fold takes 2R + C + T - 2 = 256 + 512 + 64 - 2 = 830
    cycles. The first filter block (128 x 512 = 65,536 words) streams in ceil(65536 / 273) = 241 cycles (the
    ifmap's 8,192 words in 31, alongside); the second block streams while the first fold runs, so the folds run
    back to back: 241 + 2 x 830 = 1,901; the 64 x 512 outputs drain in ceil(32768 / 273) = 121: 2,022 cycles.
    int8: two elements per word, k' = 128: one fold, 241 + 830 + 121 = 1,192 cycles (the same filter words,
    now holding the whole K). Bytes read: bf16 (64 x 256 + 256 x 512) x 2 = 294,912; int8 half, 147,456 (plain
    int8: no scale bytes)."""
    layer = GemmLayer("h", m=64, k=256, n=512)
    counts = {}
    for name in (BF16, INT8):
        plan, counters = run(load_arch(name), layer)
        assert counters == FAMILY.reference(plan)
        result = FAMILY.account(plan, counters)
        assert result.macs_issued == layer.macs
        counts[name] = (counters.folds, counters.compute_cycles, counters.cycles, result.dram_read_bytes)
    assert counts[BF16] == (2, 2 * 830 - 1, 241 + 2 * 830 + 121, 294_912)
    assert counts[INT8] == (1, 830 - 1, 241 + 830 + 121, 147_456)


def _ratio(layer, dram_bandwidth=None):
    cycles = {}
    for name in (BF16, INT8):
        arch = load_arch(name)
        if dram_bandwidth is not None:
            arch = dataclasses.replace(arch, dram=dataclasses.replace(arch.dram, bandwidth=dram_bandwidth))
        cycles[name] = run(arch, layer)[1]
    return cycles[BF16], cycles[INT8]


def test_int8_twice_bf16_compute_bound():
    """4096^3: 256 folds of 2 x 128 + 512 + 4096 - 2 = 4,862 cycles at bf16, 128 at int8; the first fill and the
    last drain (the same for both) keep the ratio just under 2."""
    bf16, int8 = _ratio(GemmLayer("c", m=4096, k=4096, n=4096))
    assert (bf16.compute_cycles, int8.compute_cycles) == (256 * 4862 - 1, 128 * 4862 - 1)
    assert 1.98 < bf16.cycles / int8.cycles < 2


def test_int8_twice_bf16_weight_stream_bound():
    """A decode GEMV whose weight stream sets the time: int8 moves half the filter words. At the shipped 546 B/cycle
    a 128 x 512 weight block streams in 241 cycles, less than a fold (767 cycles at m = 1), so the test narrows the
    stream to 64 B/cycle (2,048 cycles per bf16 block) to make the weights the bound."""
    bf16, int8 = _ratio(GemmLayer("w", m=1, k=1024, n=2048), dram_bandwidth=64.0)
    assert bf16.filter_dram_reads == 2 * int8.filter_dram_reads == 1024 * 2048
    assert bf16.cycles > 2 * bf16.compute_cycles                       # DRAM-bound
    assert 1.95 < bf16.cycles / int8.cycles <= 2


def test_int8_same_as_bf16_output_bound():
    """k = 128, n = 4096: each of the 8 folds drains 2048 x 512 16-bit outputs (3,841 cycles at 273 words per
    cycle) against a 2,814-cycle fold: the output stream sets the time, and outputs are 16-bit words at both
    precisions, so int8 is no faster (its shorter first fill is the only difference)."""
    bf16, int8 = _ratio(GemmLayer("o", m=2048, k=128, n=4096))
    assert bf16.compute_cycles == int8.compute_cycles and bf16.cycles > bf16.compute_cycles * 1.4
    assert 1 <= bf16.cycles / int8.cycles < 1.02

