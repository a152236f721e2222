"""OCP MX v1.0 and NVFP4 quantizers: hand-worked blocks (scale rule, ties to even, subnormals,
saturation, NaN / infinity, scale overflow and underflow) and properties (round trip of
representable values, error bound, a brute-force nearest-value check of the element rounding)."""
from __future__ import annotations

import numpy as np
import pytest

from accel_sim.foundations.compress.quantization.microscaling import (
    BLOCK_FORMATS,
    E8M0_NAN,
    quantize_block_format,
    quantize_mx,
    quantize_nvfp4,
)
from accel_sim.foundations.compress.quantization import minifloat
from accel_sim.foundations.compress.quantization.minifloat import FORMATS, decode, encode, round_to_element


def block(*values, size=32):
    """A 1 x size block: the values first, zeros after."""
    out = np.zeros((1, size))
    out[0, :len(values)] = values
    return out


def test_zero_block_smallest_scale_zero_elements():
    t = quantize_mx(np.zeros((2, 32)), "e2m1")
    assert t.scales.tolist() == [[0], [0]] and not t.codes.any() and not t.dequantize().any()


@pytest.mark.parametrize("amax, byte", [(4.0, 127), (7.0, 127), (7.99, 127), (3.99, 126), (8.0, 128), (0.5, 124)])
def test_mxfp4_scale_is_floor_log2_amax_minus_emax(amax, byte):
    t = quantize_mx(block(amax), "e2m1")
    assert int(t.scales[0, 0]) == byte


def test_mxfp4_block_max_past_six_clamps_to_six():
    t = quantize_mx(block(7.0, -7.5, 5.0), "e2m1")       # X = 1: 7 and -7.5 clamp; 5 ties to 4 (even)
    assert t.dequantize()[0, :3].tolist() == [6.0, -6.0, 4.0]


@pytest.mark.parametrize("value, expected", [(2.5, 2.0), (3.5, 4.0), (0.25, 0.0), (0.75, 1.0), (1.25, 1.0),
                                             (1.75, 2.0), (0.2, 0.0), (0.3, 0.5), (-2.5, -2.0)])
def test_e2m1_ties_to_even(value, expected):
    t = quantize_mx(block(4.0, value), "e2m1")           # X = 1
    assert t.dequantize()[0, 1] == expected


def test_e4m3_subnormals_and_saturation():
    sub = 2.0 ** -9                                      # E4M3's smallest subnormal (X = 1 with amax 448)
    t = quantize_mx(block(448.0, sub, sub / 2, 3 * sub / 2, 5 * sub / 2, -sub), "e4m3")
    assert t.dequantize()[0, :6].tolist() == [448.0, sub, 0.0, 2 * sub, 2 * sub, -sub]
    assert t.codes[0, :6].tolist() == [0x7E, 0x01, 0x00, 0x02, 0x02, 0x81]
    s = quantize_mx(block(480.0, 500.0), "e4m3")         # floor(log2 480) = 8 = emax: X = 1, both clamp
    assert s.dequantize()[0, :2].tolist() == [448.0, 448.0] and s.codes[0, 0] == 0x7E


def test_e5m2_and_fp6_largest_normals():
    assert quantize_mx(block(57344.0), "e5m2").codes[0, 0] == 0x7B
    assert quantize_mx(block(28.0), "e3m2").codes[0, 0] == 0x1F
    assert quantize_mx(block(7.5), "e2m3").codes[0, 0] == 0x1F


def test_mxint8_symmetric_range():
    t = quantize_mx(block(1.0, 1.999, -1.999, 1 / 128, 3 / 128), "int8")      # X = 1 (emax 0)
    assert t.dequantize()[0, :5].tolist() == [1.0, 127 / 64, -127 / 64, 0.0, 2 / 64]
    assert t.codes[0, :3].tolist() == [64, 127, 0x81]


def test_nan_or_infinity_makes_the_block_nan_and_spares_the_others():
    x = np.ones((3, 32))
    x[0, 5], x[1, 7] = np.nan, -np.inf
    for element in ("e2m1", "e4m3", "e5m2", "int8"):
        t = quantize_mx(x, element)
        assert t.scales[:, 0].tolist() == [E8M0_NAN, E8M0_NAN, 127 - FORMATS[element].emax]
        out = t.dequantize()
        assert np.isnan(out[:2]).all() and (out[2] == 1.0).all()


def test_scale_overflow_is_nan_and_underflow_clamps():
    assert quantize_mx(block(2.0 ** 140), "e2m1").scales[0, 0] == E8M0_NAN      # 140 - 2 > 127
    assert quantize_mx(block(2.0 ** 129), "e4m3").scales[0, 0] == 121 + 127     # 129 - 8
    tiny = quantize_mx(block(2.0 ** -140, 2.0 ** -141), "e2m1")                 # -142 clamps to -127
    assert tiny.scales[0, 0] == 0 and not tiny.dequantize().any()


def test_nvfp4_hand_block():
    x = np.zeros((1, 32))
    x[0, :3] = [2688.0, 1344.0, -3.0]        # tensor amax 448 x 6: tensor scale 1
    x[0, 16:18] = [6.0, 2.9]                 # second block: E4M3 scale 1, elements 6 and 3 (2.9 -> 3)
    t = quantize_nvfp4(x)
    assert t.tensor_scale == 1.0
    assert decode(FORMATS["e4m3"], t.scales).tolist() == [[448.0, 1.0]]
    assert t.dequantize()[0, [0, 1, 2, 16, 17]].tolist() == [2688.0, 1344.0, 0.0, 6.0, 3.0]
    assert t.bits_per_value == 4 + 8 / 16 + 32 / 32


def test_nvfp4_nan_block_and_storage():
    x = np.ones((2, 16))
    x[0, 3] = np.nan
    t = quantize_nvfp4(x)
    assert np.isnan(t.dequantize()[0]).all()
    assert t.dequantize()[1] == pytest.approx(1.0, rel=1e-7)     # the FP32 tensor scale's rounding only
    assert t.storage().values_bits == 32 * 4 and t.storage().metadata_bits == 2 * 8 + 32


@pytest.mark.parametrize("name", sorted(BLOCK_FORMATS))
def test_bits_per_value(name):
    t = quantize_block_format(np.ones((4, 64)), name)
    element = FORMATS[BLOCK_FORMATS[name][0]]
    extra = 32 / 256 if name == "nvfp4" else 0
    assert t.bits_per_value == pytest.approx(element.bits + 8 / t.block_size + extra)


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_element_rounding_is_the_nearest_value_ties_to_even(name):
    """round_to_element against a brute force over the value table (ties: the even bit pattern)."""
    fmt = FORMATS[name]
    table = fmt.values()
    table = np.concatenate([-table[::-1], table])
    rng = np.random.default_rng(7)
    mids = (table[1:] + table[:-1]) / 2
    probes = np.concatenate([rng.uniform(-fmt.max_normal, fmt.max_normal, 500), mids, table])
    got = round_to_element(fmt, probes)
    for p, g in zip(probes, got):
        dist = np.abs(table - p)
        near = table[dist == dist.min()]
        want = near[0] if near.size == 1 else near[(encode(fmt, near) & 1) == 0][0]
        assert g == want or (g == 0 and want == 0), (name, p, g, want)


@pytest.mark.parametrize("element", sorted(FORMATS))
def test_representable_blocks_round_trip(element):
    fmt = FORMATS[element]
    rng = np.random.default_rng(3)
    table = fmt.values()
    x = rng.choice(np.concatenate([-table, table]), size=(8, 32))
    x[:, 0] = fmt.max_normal                     # every block's max in the element's top binade
    x *= np.ldexp(1.0, rng.integers(-20, 20, (8, 1)))
    assert np.array_equal(quantize_mx(x, element).dequantize(), x)


@pytest.mark.parametrize("element", sorted(FORMATS))
def test_error_bound(element):
    """|x - q| <= X x max(half the top binade's step, the clamp gap 2^(emax+1) - max_normal)."""
    fmt = FORMATS[element]
    x = np.random.default_rng(5).standard_t(3, size=(64, 32)) * 10
    t = quantize_mx(x, element)
    scale = t.block_scales()[:, :1]
    half_step = np.ldexp(1.0, fmt.emax - fmt.mantissa_bits - 1)
    bound = scale * max(half_step, 2.0 ** (fmt.emax + 1) - fmt.max_normal)
    assert (np.abs(x - t.dequantize()) <= bound).all()


def test_blocks_along_an_axis_and_bad_block_size():
    x = np.random.default_rng(1).standard_normal((64, 3))
    t = quantize_mx(x, "e4m3", axis=0)
    assert t.scales.shape == (3, 2) and t.dequantize().shape == (64, 3)
    assert np.array_equal(t.dequantize(), quantize_mx(x.T, "e4m3").dequantize().T)
    with pytest.raises(ValueError, match="block_size 32 must divide"):
        quantize_mx(np.ones((2, 48)), "e2m1")
    with pytest.raises(ValueError, match="element format must be one of"):
        quantize_mx(np.ones((2, 32)), "e3m3")


def test_decode_table_matches_the_field_formula_bit_for_bit():
    """decode looks float codes up in a table of decode_formula's values: same float64 bits for every pattern
    (NaN and -0 included) and for codes carrying bits above the format's width."""
    from accel_sim.foundations.compress.quantization.minifloat import decode_formula
    codes = np.arange(-300, 300, dtype=np.int64).reshape(20, 30)
    for fmt in FORMATS.values():
        if not fmt.is_integer:
            assert decode(fmt, codes).view(np.int64).tolist() == decode_formula(fmt, codes).view(np.int64).tolist()


def test_encode_lookup_matches_the_field_formula():
    """encode finds in-format magnitudes in the ascending value table: the codes encode_formula gives, for every
    value of every format (both zeros), NaN, infinities and values outside the format (which take the formula)."""
    from accel_sim.foundations.compress.quantization.minifloat import encode_formula
    rng = np.random.default_rng(0)
    for fmt in FORMATS.values():
        values = fmt.values()
        probes = np.concatenate([values, -values, [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf],
                                 rng.standard_normal(200) * fmt.max_normal, values * 1.0001])
        assert encode(fmt, probes).tolist() == encode_formula(fmt, probes).tolist()
        assert encode(fmt, probes.reshape(-1, 1)[:10]).shape == (10, 1)


@pytest.mark.parametrize("name", list(minifloat.FORMATS))
def test_compiled_element_codes_equal_round_then_encode(name, monkeypatch):
    # The one-pass codes (numba) are encode(round_to_element(...)) bit for bit: every pattern's value and its
    # negation, the midpoints between neighbouring values (ties) and their float64 neighbours, past the largest
    # normal, specials (signed zeros and NaNs, infinities, float64 subnormals, huge values), random tensors.
    pytest.importorskip("numba")
    fmt = minifloat.FORMATS[name]
    values = minifloat.decode(fmt, np.arange(1 << fmt.bits))
    finite = np.unique(values[np.isfinite(values)])
    middles = (finite[1:] + finite[:-1]) / 2
    rng = np.random.default_rng(5)
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 5e-324, -1e-320, 1e300, -1.7e308, finite[-1] * 1.0625,
                finite[-1] * 1.07, finite[-1] * 2]
    v = np.concatenate([values, -values, middles, -middles, np.nextafter(middles, np.inf),
                        np.nextafter(middles, -np.inf), specials,
                        *(rng.standard_t(3, 2000) * scale for scale in (1e-3, 0.1, 1.0, 10.0, 1e3))])
    with np.errstate(over="ignore", invalid="ignore"):
        expected = minifloat.encode(fmt, minifloat.round_to_element(fmt, v))
    got = minifloat.element_codes(fmt, v)
    np.testing.assert_array_equal(got, expected)
    monkeypatch.setattr(minifloat, "compiled_loop", lambda function: None)    # the numpy path
    with np.errstate(over="ignore", invalid="ignore"):
        np.testing.assert_array_equal(minifloat.element_codes(fmt, v), expected)


def test_element_codes_of_strided_views():
    # A block-scaled tensor's moved axes are coded in their memory order (no copy), a gapped view after a copy:
    # the codes of each element, in the view's shape.
    fmt = minifloat.FORMATS["e4m3"]
    a = np.random.default_rng(2).standard_normal((64, 48)) * 100
    for v in (a.T, np.moveaxis(a, 0, -1).reshape(48, 2, 32), a.reshape(64, 3, 16).transpose(1, 0, 2), a[::2],
              a[:, ::3]):
        np.testing.assert_array_equal(minifloat.element_codes(fmt, v), encode(fmt, round_to_element(fmt, v)))
