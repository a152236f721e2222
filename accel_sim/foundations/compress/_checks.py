"""Argument checks and bit-width helpers shared by the compress package.

Every check raises :class:`ValueError` whose message starts with the parameter name, so a
caller sees which argument was wrong (``"density must be in [0, 1], got 1.5"``).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

_NUMERIC_KINDS = "biuf"


def as_finite_array(
    x: np.ndarray, name: str, *, ndim: int | None = None, min_ndim: int = 1, nonempty: bool = False
) -> np.ndarray:
    """``x`` as an ndarray after checking its dtype, number of dimensions and finiteness.

    ``ndim`` asks for an exact number of dimensions, otherwise at least ``min_ndim``;
    ``nonempty`` asks for at least one element.
    Boolean, integer and real floating dtypes are accepted; NaN and infinity are not.
    """
    arr = np.asarray(x)
    if arr.dtype.kind not in _NUMERIC_KINDS:
        raise ValueError(f"{name} must be a boolean, integer or real floating array, got dtype {arr.dtype}")
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got {arr.ndim}-D array of shape {arr.shape}")
    if ndim is None and arr.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimension(s), got shape {arr.shape}")
    if nonempty and arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite values (found NaN or infinity)")
    return arr


def check_density(density: float, name: str = "density") -> float:
    """``density`` as a float after checking it is a finite number in [0, 1]."""
    value = float(density)
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {density!r}")
    return value


def check_int(value: int, name: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """``value`` as an int after checking it is an integer in [minimum, maximum]."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    result = int(value)
    if result < minimum or (maximum is not None and result > maximum):
        upper = "" if maximum is None else f" and <= {maximum}"
        raise ValueError(f"{name} must be >= {minimum}{upper}, got {result}")
    return result


def check_axis(axis: int, ndim: int, name: str = "axis") -> int:
    """``axis`` normalised to [0, ndim) after checking it names a dimension."""
    if ndim < 1:
        raise ValueError(f"{name} cannot index a 0-D array")
    return check_int(axis, name, minimum=-ndim, maximum=ndim - 1) % ndim


# 2^31 elements (8 GiB of float32): the largest tensor a function may allocate from a shape
# alone; VGG-16's fc6 (103 M weights) is far below. Bigger requests are refused before allocating.
MAX_TENSOR_ELEMENTS = 2**31


def check_shape(shape: Sequence[int], name: str = "shape") -> tuple[int, ...]:
    """``shape`` as a tuple of non-negative ints with at least one dimension and at most
    :data:`MAX_TENSOR_ELEMENTS` elements."""
    dims = tuple(check_int(d, f"{name}[{i}]", minimum=0) for i, d in enumerate(shape))
    if not dims:
        raise ValueError(f"{name} must have at least one dimension, got {tuple(shape)!r}")
    size = math.prod(dims)
    if size > MAX_TENSOR_ELEMENTS:
        raise ValueError(f"{name} {dims} has {size:,} elements, more than the limit of {MAX_TENSOR_ELEMENTS:,} "
                         "(refused before allocating)")
    return dims


def bits_to_address(count: int) -> int:
    """Fewest bits that give ``count`` distinct codes: ceil(log2(count)), 0 for count <= 1."""
    return max(int(count) - 1, 0).bit_length()


def fits_in_bits(max_value: int, bits: int) -> bool:
    """Whether the unsigned integer ``max_value`` fits in ``bits`` bits."""
    return int(max_value) < (1 << int(bits))


# Absorbs the binary representation error of decimal densities: 0.35 * 10 evaluates to
# 3.4999999999999996, which must count as the half 3.5 and round up to 4.
_DECIMAL_TOLERANCE = 1e-9


def count_for_density(density: float, total: int) -> int:
    """How many of ``total`` items a ``density`` keeps: the nearest integer, halves rounded up.

    This is the rounding rule of every density target in the package.
    """
    return min(int(total), int(math.floor(density * total + 0.5 + _DECIMAL_TOLERANCE)))


def field_width(requested: int | None, name: str, largest: int, default: int) -> int:
    """Width of an unsigned field: ``default``, or ``requested`` after checking ``largest`` fits.

    ``largest`` is the biggest value the field must hold (negative when it holds none).
    """
    if requested is None:
        return default
    bits = check_int(requested, name, minimum=0)
    if largest > 0 and not fits_in_bits(largest, bits):
        raise ValueError(f"{name}={bits} cannot hold the value {largest}; it needs at least {bits_to_address(largest + 1)}")
    return bits


def check_block_shape(block_size: int | tuple[int, int], name: str = "block_size") -> tuple[int, int]:
    """A 2-D block shape from an int b (meaning b x b) or a (rows, columns) pair of ints >= 1."""
    if isinstance(block_size, tuple) and len(block_size) == 2:
        return check_int(block_size[0], f"{name}[0]"), check_int(block_size[1], f"{name}[1]")
    if isinstance(block_size, tuple):
        raise ValueError(f"{name} must be an int or a (rows, columns) pair, got {block_size!r}")
    side = check_int(block_size, name)
    return side, side
