"""Block-scaled inference helpers of the block-scaling study: bits per value, padding of a K that is not
whole blocks, and the ordering the study reports on heavy-tailed weights (small, seeded)."""
import numpy as np
import pytest

from accel_sim.systems.nn.block_scaled import Scheme, fake_quantize, gemm_error

MXFP4, NVFP4 = Scheme("mxfp4", "mx", "e2m1", 32), Scheme("nvfp4", "nvfp4", "", 16)
DFP8, MXINT8 = Scheme("dfp8", "dfp"), Scheme("mxint8", "mx", "int8", 32)


def test_bits_per_value_and_padding():
    w = np.random.default_rng(0).standard_normal((100, 8))      # K = 100: not whole blocks of 32
    values, bits = fake_quantize(w, MXFP4, axis=0)
    assert values.shape == w.shape and bits == pytest.approx(4 + 8 * 4 * 8 / 800)   # 4 blocks per column
    assert fake_quantize(np.ones((64, 4)), MXFP4, axis=0)[1] == 4.25
    assert fake_quantize(np.ones((64, 4)), NVFP4, axis=0)[1] == 4 + 8 / 16 + 32 / 256
    assert fake_quantize(np.ones((64, 4)), Scheme("fp16", "fp16"), axis=0)[1] == 16


def test_heavy_tails_favour_small_blocks():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((32, 256)), rng.standard_t(3, (256, 128)) / 16
    errors = {s.name: gemm_error(x, w, s)[0] for s in (DFP8, MXINT8, MXFP4, NVFP4)}
    assert errors["mxint8"] < errors["dfp8"] and errors["nvfp4"] < errors["mxfp4"]
