"""Weight-only quantization (``quantized_weight_bits``) on the families that honour it: the fast
path and the reference agree on every counter, the weights' DRAM bytes scale with the stored
width while the math stays at the word width."""
from __future__ import annotations

import pytest

from accel_sim import load_arch
from accel_sim.pipeline.catalog import family_of
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.foundations.workload.layer import BatchedGemmLayer, GemmLayer, NMSparsity, OperandSource

ARCHS = ("ampere_a100", "pe_array", "dlu")


@pytest.mark.parametrize("arch_name", ARCHS)
@pytest.mark.parametrize("bits", [4, 8])
def test_fast_and_reference_agree_on_quantized_layers(arch_name, bits):
    arch = load_arch(arch_name)
    family = family_of(arch)
    for layer in (GemmLayer("g", m=3, k=96, n=80, quantized_weight_bits=bits),
                  BatchedGemmLayer("b", instances=2, m=2, k=64, n=40, quantized_weight_bits=bits).instance(1)):
        assert family.refinement(arch, layer) == [], (arch_name, layer.name)


@pytest.mark.parametrize("arch_name", ARCHS)
def test_weight_bytes_scale_with_the_stored_width(arch_name):
    arch = load_arch(arch_name)
    word = arch.dlu.bits if arch.family == "dlu" else arch.word_bits
    k, n = 512, 512
    full = simulate_layer(arch, GemmLayer("g", m=1, k=k, n=n)).result
    half = simulate_layer(arch, GemmLayer("g", m=1, k=k, n=n, quantized_weight_bits=word // 2)).result
    saved = full.dram_read_bytes - half.dram_read_bytes
    assert saved == k * n * (word - word // 2) // 8       # the weights, read once, at half the width
    assert half.macs_issued == full.macs_issued and half.cycles <= full.cycles


def test_tensor_core_2_4_and_int4_combine():
    arch = load_arch("ampere_a100")
    nm = dict(weight_sparsity=NMSparsity(2, 4), operands=OperandSource(weight_pattern="nm"))
    sparse = simulate_layer(arch, GemmLayer("g", m=1, k=1024, n=1024, **nm)).result
    both = simulate_layer(arch, GemmLayer("g", m=1, k=1024, n=1024, quantized_weight_bits=4, **nm)).result
    # A: half the values with 2-bit metadata each; 16 -> 4 bits per value: (16 + 2) -> (4 + 2) bits per kept value
    kept = 1024 * 1024 // 2
    assert sparse.dram_read_bytes - both.dram_read_bytes == kept * (16 - 4) // 8
