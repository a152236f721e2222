"""Narrow element formats of block-scaled numbers: FP8 (E4M3, E5M2), FP6 (E3M2, E2M3), FP4 (E2M1), INT8.

Definitions from the OCP "Microscaling Formats (MX) v1.0 Specification" (2023), section 5 (element
data types): a float element ``S.E.M`` with exponent bias ``bias`` is ``(-1)^S 2^(E - bias) 1.M``
for ``E > 0`` and ``(-1)^S 2^(1 - bias) 0.M`` (subnormal) for ``E = 0``. E4M3 and E5M2 are the
OCP 8-bit floats (OFP8, 2023): E4M3 has no infinity and one NaN pattern per sign (``S.1111.111``),
so its largest normal is 448; E5M2 is IEEE-like (``S.11111.00`` infinity, ``S.11111.xx`` NaN),
largest normal 57344. The FP6 and FP4 elements have neither. The MX INT8 element is a two's
complement integer with an implicit scale of 2^-6 (largest 1 63/64; the spec leaves -2 unused, so
the range is symmetric, as microsoft/microxcaling ``mx/formats.py`` has it).

Conversion to an element (:func:`round_to_element`): round to nearest, ties to even, subnormals
kept; a finite value past the largest normal is clamped to it, sign preserved (the MX spec's
conversion rule; OFP8's saturating mode). ``emax`` is the exponent of the largest normal, the
``emax_elem`` of the MX scale rule.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.compiled import compiled_loop

OCP_MX = "OCP Microscaling Formats (MX) v1.0 Specification (2023), section 5"
OCP_FP8 = "OCP 8-bit Floating Point Specification (OFP8) rev 1.0 (2023)"


@dataclass(frozen=True)
class ElementFormat:
    """One element encoding: a minifloat (``exponent_bits`` > 0) or a scaled integer (0)."""

    name: str
    bits: int
    exponent_bits: int
    mantissa_bits: int
    bias: int
    emax: int              # exponent of the largest normal (emax_elem of the MX scale rule)
    max_normal: float
    has_inf: bool = False
    has_nan: bool = False

    @property
    def is_integer(self) -> bool:
        return self.exponent_bits == 0

    @property
    def emin(self) -> int:
        """Exponent of the smallest normal (integers: of their LSB's scale plus the fraction bits)."""
        return 1 - self.bias if not self.is_integer else -self.mantissa_bits

    @property
    def quantum(self) -> float:
        """The smallest positive value (smallest subnormal; the integer's LSB): every value is a multiple."""
        return float(np.ldexp(1.0, self.emin - self.mantissa_bits)) if not self.is_integer \
            else float(np.ldexp(1.0, -self.mantissa_bits))

    def values(self) -> np.ndarray:
        """Every finite non-negative value of the format, ascending (for tests and tables)."""
        codes = np.arange(1 << (self.bits - 1), dtype=np.int64)
        vals = decode(self, codes)
        return np.unique(vals[np.isfinite(vals)])


FORMATS: dict[str, ElementFormat] = {
    "e4m3": ElementFormat("e4m3", 8, 4, 3, 7, 8, 448.0, has_nan=True),
    "e5m2": ElementFormat("e5m2", 8, 5, 2, 15, 15, 57344.0, has_inf=True, has_nan=True),
    "e3m2": ElementFormat("e3m2", 6, 3, 2, 3, 4, 28.0),
    "e2m3": ElementFormat("e2m3", 6, 2, 3, 1, 2, 7.5),
    "e2m1": ElementFormat("e2m1", 4, 2, 1, 1, 2, 6.0),
    "int8": ElementFormat("int8", 8, 0, 6, 0, 0, 127 / 64),   # 1 sign, 1 integer, 6 fraction bits
}


def element_format(name: str) -> ElementFormat:
    """The format called ``name`` (ValueError naming the known ones otherwise)."""
    try:
        return FORMATS[name]
    except KeyError:
        raise ValueError(f"element format must be one of {', '.join(FORMATS)}, got {name!r}") from None


def floor_log2(v: np.ndarray) -> np.ndarray:
    """``floor(log2(v))`` of positive finite float64s, exact (from the binary exponent, not a logarithm)."""
    _, exponent = np.frexp(v)
    return exponent.astype(np.int64) - 1


def round_to_element(fmt: ElementFormat, v: np.ndarray) -> np.ndarray:
    """``v`` (float64) rounded to the nearest value of ``fmt``, ties to even, finite values past the
    largest normal clamped to it (sign kept, -0 kept). NaN stays NaN; infinity stays infinity in a
    format that has it and is clamped otherwise."""
    v = np.asarray(v, dtype=np.float64)
    mag = np.abs(v)
    with np.errstate(divide="ignore", invalid="ignore"):
        if fmt.is_integer:
            step = np.full(v.shape, fmt.quantum)
        else:
            exponent = floor_log2(np.where(np.isfinite(mag) & (mag > 0), mag, 1.0))
            step = np.ldexp(1.0, np.maximum(exponent, fmt.emin) - fmt.mantissa_bits)
        rounded = np.rint(mag / step) * step          # power-of-two steps: exact; np.rint ties to even
    rounded = np.minimum(rounded, fmt.max_normal)
    if fmt.has_inf:
        rounded = np.where(np.isinf(mag), np.inf, rounded)
    rounded = np.where(np.isnan(mag), np.nan, rounded)
    return np.copysign(rounded, v)


def encode(fmt: ElementFormat, q: np.ndarray) -> np.ndarray:
    """Bit patterns (int64, ``fmt.bits`` wide) of values already in ``fmt`` (from :func:`round_to_element`)."""
    q = np.asarray(q, dtype=np.float64)
    if fmt.is_integer:
        return encode_formula(fmt, q)
    # A finite magnitude of the format is found in the ascending values of the non-negative codes: its index is
    # its code (the one the field formula gives); anything else (NaN, infinity, a value not in the format)
    # takes encode_formula, element by element as before.
    mag = np.abs(q)
    ascending = _finite_magnitudes(fmt)
    index = np.minimum(np.searchsorted(ascending, mag), len(ascending) - 1)
    found = ascending[index] == mag
    code = np.where(found, index, 0)
    if not found.all():
        code[~found] = encode_formula(fmt, mag[~found])
    return (np.signbit(q).astype(np.int64) << (fmt.bits - 1)) | code


def element_codes(fmt: ElementFormat, v: np.ndarray) -> np.ndarray:
    """``encode(fmt, round_to_element(fmt, v))``: the bit patterns of ``v`` rounded to ``fmt``. With numba, one
    compiled pass (:func:`element_codes_loop`, the same codes: tests compare every value of each format, the
    midpoints between them and their neighbours, the specials and random tensors); else those two functions."""
    v = np.asarray(v, dtype=np.float64)
    loop = compiled_loop(element_codes_loop)
    if loop is None:
        return encode(fmt, round_to_element(fmt, v))
    order = _memory_order(v)   # element-wise: in v's own memory order (a block-scaled tensor's moved axes), no copy
    if order is None:
        v = np.ascontiguousarray(v)
        order = tuple(range(v.ndim))
    codes = np.empty_like(v, dtype=np.int64)
    inputs, outputs = v.transpose(order), codes.transpose(order)
    if not outputs.flags.c_contiguous:   # pragma: no cover - empty_like keeps a dense array's memory order
        codes = np.empty(v.shape, dtype=np.int64)
        inputs, outputs = np.ascontiguousarray(v), codes
    flat = inputs.reshape(-1)
    loop(flat, flat.view(np.int64), _POWERS_OF_TWO, fmt.is_integer, fmt.quantum, fmt.emin, fmt.mantissa_bits,
         fmt.max_normal, int(encode(fmt, np.array(fmt.max_normal))), fmt.has_inf, fmt.has_nan, fmt.bias,
         fmt.exponent_bits, fmt.bits, outputs.reshape(-1))
    return codes


def _memory_order(v: np.ndarray) -> tuple[int, ...] | None:
    """The axes of ``v`` from the largest stride to the smallest when that transpose is C-contiguous (``v`` fills
    its memory without gaps, in some axis order); else None."""
    order = tuple(sorted(range(v.ndim), key=lambda axis: -v.strides[axis]))
    return order if v.transpose(order).flags.c_contiguous and min(v.strides, default=1) > 0 else None


_LEAST_EXPONENT = -1074     # 2^-1074, the smallest float64 subnormal: every power of two a float64 holds
_POWERS_OF_TWO = np.ldexp(1.0, np.arange(_LEAST_EXPONENT, 1024))
_POWERS_OF_TWO.flags.writeable = False


def element_codes_loop(v, fields, powers, integer, quantum, emin, m, max_normal, max_code, has_inf, has_nan, bias,
                       exponent_bits, bits, codes):
    """:func:`round_to_element` then :func:`encode` of each element. The rounding as
    :func:`round_to_element` does it: ``floor(log2 |x|)`` from the float64's exponent field (``frexp`` for a
    float64 subnormal), the step ``2^(max(e, emin) - m)`` (``powers``: exact), ``n = rint(|x| / step)``. The code
    of ``n x step``: ``((max(e, emin) + bias - 1) << m) + n``, which is the field and mantissa of
    :func:`encode_formula` (``n`` runs from ``2^m`` to ``2^(m+1)`` in a normal binade, the top one the next
    binade's ``1.0``; from 0 to ``2^m`` in the subnormal one, ``2^m`` the smallest normal); 0 for a zero, the
    largest normal's code past it, infinity's and NaN's patterns; the sign bit ``x``'s (``copysign``)."""
    top = ((1 << exponent_bits) - 1) << m
    mask = (1 << bits) - 1
    sign_bit = 1 << (bits - 1)
    for i in range(v.size):
        x = v[i]
        mag = abs(x)
        if integer:   # round_to_element's step is the quantum; encode_formula's rint(q / quantum), two's complement
            rounded = np.rint(mag / quantum) * quantum
            if rounded > max_normal:
                rounded = max_normal
            q = math.copysign(rounded, x) if mag == mag else 0.0
            codes[i] = np.int64(np.rint(q / quantum)) & mask
            continue
        field = (fields[i] >> 52) & 0x7FF
        if field == 0x7FF:    # infinity or NaN
            code = top | ((1 << m) - 1) if mag != mag and has_nan else (top if has_inf and mag == math.inf else 0)
            if mag == mag and not has_inf:
                code = max_code
        elif mag == 0.0:
            code = 0
        else:
            exponent = field - 1023 if field else math.frexp(mag)[1] - 1
            k = max(exponent, emin)
            n = np.rint(mag / powers[k - m + 1074])
            code = max_code if n * powers[k - m + 1074] > max_normal else ((k + bias - 1) << m) + np.int64(n)
        codes[i] = (sign_bit if math.copysign(1.0, x) < 0 else 0) | code


@functools.lru_cache(maxsize=None)
def _finite_magnitudes(fmt: ElementFormat) -> np.ndarray:
    """Values of the non-negative codes 0, 1, ... up to the first NaN or infinity (strictly ascending)."""
    values = _value_table(fmt)[: 1 << (fmt.bits - 1)]
    finite = values[: int(np.argmin(np.isfinite(values))) if not np.isfinite(values).all() else len(values)]
    assert (np.diff(finite) > 0).all()
    finite = finite.copy()
    finite.flags.writeable = False
    return finite


def encode_formula(fmt: ElementFormat, q: np.ndarray) -> np.ndarray:
    """:func:`encode` from each value's exponent and fraction (what it gives for values outside the table)."""
    q = np.asarray(q, dtype=np.float64)
    sign = np.signbit(q).astype(np.int64) << (fmt.bits - 1)
    mag = np.abs(q)
    if fmt.is_integer:
        n = np.rint(np.where(np.isfinite(q), q, 0.0) / fmt.quantum).astype(np.int64)
        return n & ((1 << fmt.bits) - 1)
    m = fmt.mantissa_bits
    finite = np.isfinite(mag)
    safe = np.where(finite & (mag > 0), mag, 1.0)
    exponent = np.maximum(floor_log2(safe), fmt.emin)
    normal = finite & (mag >= np.ldexp(1.0, fmt.emin))
    field = np.where(normal, exponent + fmt.bias, 0)
    frac = np.rint(np.where(finite, mag, 0.0) / np.ldexp(1.0, exponent - m)).astype(np.int64)
    mantissa = np.where(normal, frac - (1 << m), frac)
    code = (field << m) | mantissa
    top = ((1 << fmt.exponent_bits) - 1) << m
    if fmt.has_inf:
        code = np.where(np.isinf(mag), top, code)
    if fmt.has_nan:
        code = np.where(np.isnan(mag), top | ((1 << m) - 1), code)
    return sign | code


def decode(fmt: ElementFormat, codes: np.ndarray) -> np.ndarray:
    """Values (float64) of ``fmt`` bit patterns."""
    codes = np.asarray(codes, dtype=np.int64)
    if fmt.is_integer:
        n = np.where(codes >= 1 << (fmt.bits - 1), codes - (1 << fmt.bits), codes)
        return n * fmt.quantum
    # a float's value depends only on its low ``bits`` bits (sign, exponent field, mantissa): look each code up
    # in the 2^bits values :func:`decode_formula` gives (the same arithmetic, once per pattern)
    return _value_table(fmt)[codes & ((1 << fmt.bits) - 1)]


@functools.lru_cache(maxsize=None)
def _value_table(fmt: ElementFormat) -> np.ndarray:
    table = decode_formula(fmt, np.arange(1 << fmt.bits, dtype=np.int64))
    table.flags.writeable = False
    return table


def decode_formula(fmt: ElementFormat, codes: np.ndarray) -> np.ndarray:
    """:func:`decode` of a float format computed from the fields of every code (what its table holds)."""
    codes = np.asarray(codes, dtype=np.int64)
    m, e_bits = fmt.mantissa_bits, fmt.exponent_bits
    sign = np.where((codes >> (fmt.bits - 1)) & 1, -1.0, 1.0)
    field = (codes >> m) & ((1 << e_bits) - 1)
    mantissa = codes & ((1 << m) - 1)
    normal = np.ldexp(1.0 + mantissa / (1 << m), field - fmt.bias)
    subnormal = np.ldexp(mantissa / (1 << m), fmt.emin)
    value = np.where(field > 0, normal, subnormal)
    top = field == (1 << e_bits) - 1
    if fmt.has_inf:   # E5M2: IEEE-like top binade
        value = np.where(top & (mantissa == 0), np.inf, np.where(top, np.nan, value))
    elif fmt.has_nan:  # E4M3: S.1111.111 only
        value = np.where(top & (mantissa == (1 << m) - 1), np.nan, value)
    return sign * value
