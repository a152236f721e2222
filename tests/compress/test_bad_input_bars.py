"""Issue 3's bad-input bars on the compress package, and the fast Huffman decoder."""
from __future__ import annotations

import numpy as np
import pytest

from accel_sim.foundations.compress import (
    BSR,
    EIEInterleavedCSC,
    NOfM,
    RunLengthEncoded,
    SCNNZeroRun,
    activation_mask,
    huffman_decode,
    huffman_encode,
    magnitude_mask,
    nm_mask,
    random_mask,
    synthetic_activations,
)
from accel_sim.foundations.compress._checks import MAX_TENSOR_ELEMENTS
from accel_sim.foundations.compress.huffman import HuffmanResult, _canonical, _decode_bit_by_bit
from accel_sim.foundations.workload.layer import GemmLayer, OperandSource

HUGE = (10**6, 10**5)  # 10^11 elements


@pytest.mark.parametrize("call", [
    lambda: random_mask(HUGE, density=0.5, seed=0),
    lambda: synthetic_activations(HUGE, density=0.5, seed=0),
    lambda: activation_mask(HUGE, density=0.5, seed=0),
])
def test_a_tensor_of_1e11_elements_is_refused_before_allocating(call, monkeypatch):
    monkeypatch.setattr(np, "zeros", lambda *a, **k: pytest.fail("nothing may be allocated"))
    with pytest.raises(ValueError, match=r"100,000,000,000 elements, more than the limit .*refused before allocating"):
        call()
    assert MAX_TENSOR_ELEMENTS < 10**11


@pytest.mark.parametrize("density", [-0.01, 1.01, float("inf"), float("nan")])
def test_density_outside_0_1(density):
    with pytest.raises(ValueError, match=r"density must be in \[0, 1\]"):
        magnitude_mask(np.ones((4, 4)), density=density)
    with pytest.raises(ValueError, match=r"density must be in \[0, 1\]"):
        synthetic_activations((4, 4), density=density, seed=0)


def test_n_greater_than_m():
    with pytest.raises(ValueError, match="n must be >= 1 and <= 4, got 5"):
        nm_mask(np.ones((4, 8)), n=5, m=4)
    with pytest.raises(ValueError, match="n must be >= 1 and <= 2, got 3"):
        NOfM.from_dense(np.ones((2, 4)), n=3, m=2)


def test_block_size_not_dividing_the_layer_weights():
    with pytest.raises(ValueError, match="block 5 does not divide the 24 x 12 weight matrix"):
        GemmLayer("g", m=1, k=24, n=12, weight_density=0.5, operands=OperandSource(weight_pattern="block", block=5))
    GemmLayer("g", m=1, k=24, n=12, weight_density=0.5, operands=OperandSource(weight_pattern="block", block=4))
    # BSR of a raw matrix pads the edge blocks (documented), so it stores any shape exactly
    x = np.arange(30.0).reshape(5, 6)
    assert np.array_equal(BSR.from_dense(x, block_size=4).to_dense(), x)


@pytest.mark.parametrize("call", [
    lambda: EIEInterleavedCSC.from_dense(np.ones((2, 2)), index_bits=0),
    lambda: RunLengthEncoded.from_dense(np.ones(4), run_bits=0),
    lambda: SCNNZeroRun.from_dense(np.ones(4), run_bits=-1),
])
def test_index_bits_below_one(call):
    with pytest.raises(ValueError, match="(index_bits|run_bits) must be >= 1"):
        call()


@pytest.mark.parametrize("p", [0.05, 0.3, 0.9])
def test_table_decoder_equals_the_bit_by_bit_decoder(p):
    rng = np.random.default_rng(int(p * 100))
    stream = (rng.geometric(p, size=20_000) - 2).astype(np.int32)
    coded = huffman_encode(stream)
    fast, slow = huffman_decode(coded), _decode_bit_by_bit(coded, _canonical(coded.code_lengths))
    assert np.array_equal(fast, stream) and np.array_equal(slow, stream) and fast.dtype == np.int32


def test_long_codes_fall_back_and_still_decode():
    fibonacci = [1, 1]
    while len(fibonacci) < 24:
        fibonacci.append(fibonacci[-1] + fibonacci[-2])
    stream = np.repeat(np.arange(24), fibonacci)  # Fibonacci counts: the deepest Huffman tree (23-bit codes)
    coded = huffman_encode(stream.astype(np.int64))
    assert max(coded.code_lengths.values()) > 20
    assert np.array_equal(huffman_decode(coded), stream)


def test_corrupt_bits_raise():
    coded = huffman_encode(np.array([0, 1, 1, 2, 2, 2, 2], dtype=np.int64))
    truncated = HuffmanResult(coded.bits[:-1], coded.code_lengths, coded.n_symbols, coded.coded_bits - 1,
                              coded.entropy_bits, coded.dtype)
    with pytest.raises(ValueError, match="whole symbols, expected 7"):
        huffman_decode(truncated)
    extra = HuffmanResult(np.concatenate((coded.bits, coded.bits[:1])), coded.code_lengths, coded.n_symbols,
                          coded.coded_bits + 1, coded.entropy_bits, coded.dtype)
    with pytest.raises(ValueError, match="whole symbols, expected 7"):
        huffman_decode(extra)
    single = huffman_encode(np.zeros(3, dtype=np.int64))  # one symbol: code '0'; a '1' is no code
    bad = HuffmanResult(np.array([0, 1, 0], dtype=np.uint8), single.code_lengths, 3, 3, 0.0, single.dtype)
    with pytest.raises(ValueError, match="expected 3"):
        huffman_decode(bad)
