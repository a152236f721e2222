"""Block-scaled numbers: OCP Microscaling (MX) v1.0 formats and NVIDIA's NVFP4.

**MX** (OCP "Microscaling Formats (MX) v1.0 Specification", 2023, section 6; Rouhani et al.,
"Microscaling Data Formats for Deep Learning", arXiv 2310.10537, Algorithm 1): a block of ``k = 32``
consecutive elements along one axis shares one E8M0 scale ``X = 2^shared_exp`` (a biased 8-bit
exponent, bias 127, values 2^-127 .. 2^127; byte 0xFF is NaN). Conversion of a block ``V``:

1. ``shared_exp = floor(log2(max_i |V_i|)) - emax_elem`` (``emax_elem``: exponent of the element
   format's largest normal: 8 E4M3, 15 E5M2, 4 E3M2, 2 E2M3, 2 E2M1, 0 INT8);
2. ``P_i = quantize_to_element_format(V_i / X)``: round to nearest even, normal numbers past the
   element's range clamped to its largest normal, sign kept (:func:`.minifloat.round_to_element`).

Edge cases, as the reference implementation microsoft/microxcaling (``mx/mx_ops.py``) has them: a
``shared_exp`` above 127 (the scale cannot represent it) makes the scale NaN; one below -127 is
clamped to -127 (the block's elements then underflow towards zero). A block holding a NaN or an
infinity has a non-finite maximum, so its scale is NaN, and a NaN scale makes every element of the
block NaN when decoded (spec section 6.2). A block of zeros gets the smallest scale (log2(0) = -inf
clamps to -127) and zero elements.

**NVFP4** (NVIDIA, "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference",
developer blog 2025; TensorRT-LLM ``cpp/tensorrt_llm/thop/fp4Quantize.cpp``): E2M1 elements in
blocks of 16 with an FP8 E4M3 block scale and one FP32 scale per tensor. The per-tensor (decode)
scale is ``amax(tensor) / (448 x 6)`` in FP32, so the largest block scale lands at E4M3's largest
normal; a block's scale is ``E4M3(amax(block) / 6 / tensor_scale)`` (round to nearest even,
saturating) and its elements are ``E2M1(V_i / (block_scale x tensor_scale))``. A value is
``P_i x block_scale x tensor_scale``.

Storage (:meth:`BlockScaledTensor.storage`): element bits in ``values_bits``; block scales (and the
NVFP4 per-tensor FP32) in ``metadata_bits``, the fixed-size side information of a stored tensor.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.compress.quantization.minifloat import (
    FORMATS,
    ElementFormat,
    decode,
    element_codes,
    element_format,
    encode,
    floor_log2,
    round_to_element,
)
from accel_sim.foundations.compress.storage import StorageBreakdown

E8M0_BIAS = 127                 # OCP MX v1.0, section 5.4: E8M0 scale, bias 127
E8M0_EMAX = 127                 # largest scale exponent (byte 254)
E8M0_NAN = 0xFF                 # byte 255 is NaN
MX_BLOCK = 32                   # OCP MX v1.0, section 5: k = 32 for every concrete MX format
MX_SCALE_BITS = 8
NVFP4_BLOCK = 16                # NVIDIA NVFP4 blog (2025): 16-element micro-blocks
NVFP4_TENSOR_SCALE_BITS = 32    # one FP32 per tensor
E2M1_MAX = FORMATS["e2m1"].max_normal       # 6
E4M3_MAX = FORMATS["e4m3"].max_normal       # 448

# The concrete MX formats of the spec's table 1 and NVFP4: name -> element format, block, scale kind.
BLOCK_FORMATS: dict[str, tuple[str, int, str]] = {
    "mxfp8_e4m3": ("e4m3", MX_BLOCK, "e8m0"),
    "mxfp8_e5m2": ("e5m2", MX_BLOCK, "e8m0"),
    "mxfp6_e3m2": ("e3m2", MX_BLOCK, "e8m0"),
    "mxfp6_e2m3": ("e2m3", MX_BLOCK, "e8m0"),
    "mxfp4": ("e2m1", MX_BLOCK, "e8m0"),
    "mxint8": ("int8", MX_BLOCK, "e8m0"),
    "nvfp4": ("e2m1", NVFP4_BLOCK, "e4m3"),
}


def block_format(name: str) -> tuple[ElementFormat, int, str]:
    """(element format, block size, scale kind) of a named block format; ValueError if unknown."""
    try:
        element, block, scale = BLOCK_FORMATS[name]
    except KeyError:
        raise ValueError(f"block format must be one of {', '.join(BLOCK_FORMATS)}, got {name!r}") from None
    return FORMATS[element], block, scale


@dataclass(frozen=True, eq=False)
class BlockScaledTensor:
    """A block-scaled tensor: element bit patterns, one scale per block, an optional tensor scale.

    Attributes:
        element: the element format.
        codes: int64 bit patterns of the elements, the input's shape.
        scales: int64 scale bit patterns (E8M0 bytes, or E4M3 patterns for NVFP4), shape of the input
            with ``axis`` divided by ``block_size``.
        block_size: elements per scale along ``axis``.
        axis: the blocked axis.
        scale_kind: ``"e8m0"`` or ``"e4m3"``.
        tensor_scale: the FP32 per-tensor decode scale (NVFP4), else None.
    """

    element: ElementFormat
    codes: np.ndarray
    scales: np.ndarray
    block_size: int
    axis: int
    scale_kind: str
    tensor_scale: float | None = None

    @property
    def scale_bits(self) -> int:
        """Bits of every scale: 8 per block, plus 32 for an NVFP4 tensor scale."""
        extra = NVFP4_TENSOR_SCALE_BITS if self.tensor_scale is not None else 0
        return int(self.scales.size) * MX_SCALE_BITS + extra

    def block_scales(self) -> np.ndarray:
        """Each block's scale as a real number (NaN for a NaN scale), tensor scale included."""
        if self.scale_kind == "e8m0":
            exponent = self.scales.astype(np.int64) - E8M0_BIAS
            return np.where(self.scales == E8M0_NAN, np.nan, np.ldexp(1.0, exponent))
        values = decode(FORMATS["e4m3"], self.scales)
        return values * (self.tensor_scale if self.tensor_scale is not None else 1.0)

    def dequantize(self) -> np.ndarray:
        """The real values (float64): element x block scale; NaN throughout a block with a NaN scale."""
        elements = _blocks(decode(self.element, self.codes), self.axis, self.block_size)
        values = elements * self.block_scales()[..., None]
        return _unblocks(values, self.axis, self.codes.shape)

    def storage(self) -> StorageBreakdown:
        """Bits stored: the elements as values, the scales as metadata."""
        return StorageBreakdown(values_bits=int(self.codes.size) * self.element.bits, metadata_bits=self.scale_bits)

    @property
    def bits_per_value(self) -> float:
        """Stored bits per element, scales included (MXFP4: 4 + 8/32 = 4.25)."""
        return self.storage().total_bits / self.codes.size


def _blocks(x: np.ndarray, axis: int, block: int) -> np.ndarray:
    """``x`` with ``axis`` moved last and split into (blocks, block)."""
    moved = np.moveaxis(x, axis, -1)
    return moved.reshape(*moved.shape[:-1], moved.shape[-1] // block, block)


def _unblocks(x: np.ndarray, axis: int, shape: tuple[int, ...]) -> np.ndarray:
    moved = x.reshape(*x.shape[:-2], x.shape[-2] * x.shape[-1])
    return np.moveaxis(moved, -1, axis).reshape(shape)


def _check(x: np.ndarray, block_size: int | None, axis: int) -> tuple[np.ndarray, int, int]:
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"x must be a real array, got dtype {arr.dtype}")
    if arr.ndim == 0 or arr.size == 0:
        raise ValueError(f"x must be a non-empty array with at least one dimension, got shape {arr.shape}")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"axis must name one of the {arr.ndim} dimensions, got {axis}")
    axis %= arr.ndim
    length = arr.shape[axis]
    block = length if block_size is None else int(block_size)
    if block < 1 or length % block:
        raise ValueError(f"block_size {block_size} must divide the blocked axis' length {length}")
    return arr.astype(np.float64, copy=False), block, axis   # read only: a float64 tensor is not copied


def quantize_mx(x: np.ndarray, element: str, *, block_size: int | None = MX_BLOCK, axis: int = -1) -> BlockScaledTensor:
    """OCP MX conversion of ``x`` to ``element`` (``"e4m3"``, ``"e5m2"``, ``"e3m2"``, ``"e2m3"``,
    ``"e2m1"``, ``"int8"``) in blocks of ``block_size`` along ``axis`` (None: the whole axis, one
    scale per row of it) with E8M0 scales. NaN and infinity are accepted (the block's scale is NaN)."""
    fmt = element_format(element)
    v, block, axis = _check(x, block_size, axis)
    blocks = _blocks(v, axis, block)
    amax = np.max(np.abs(blocks), axis=-1)              # NaN propagates
    usable = np.isfinite(amax) & (amax > 0)
    shared = floor_log2(np.where(usable, amax, 1.0)) - fmt.emax
    nan_scale = ~np.isfinite(amax) | (shared > E8M0_EMAX)
    shared = np.clip(np.where(usable, shared, -E8M0_EMAX), -E8M0_EMAX, E8M0_EMAX)   # zero block: log2(0) = -inf
    scaled = blocks / np.ldexp(1.0, shared)[..., None]
    codes = _unblocks(element_codes(fmt, np.where(nan_scale[..., None], 0.0, scaled)), axis, v.shape)
    scales = np.where(nan_scale, E8M0_NAN, shared + E8M0_BIAS).astype(np.int64)
    return BlockScaledTensor(fmt, codes, scales, block, axis, "e8m0")


def quantize_block_format(x: np.ndarray, name: str, *, axis: int = -1) -> BlockScaledTensor:
    """``x`` in a named block format (:data:`BLOCK_FORMATS`: ``"mxfp4"``, ``"nvfp4"``, ...)."""
    fmt, block, scale = block_format(name)
    if scale == "e4m3":
        return quantize_nvfp4(x, axis=axis)
    return quantize_mx(x, fmt.name, block_size=block, axis=axis)


def nvfp4_tensor_scale(x: np.ndarray) -> float:
    """NVFP4's FP32 per-tensor decode scale ``amax / (448 x 6)`` over the finite values (1 for none)."""
    mag = np.abs(np.asarray(x, dtype=np.float64))
    finite = mag[np.isfinite(mag)]
    amax = float(finite.max()) if finite.size else 0.0
    return float(np.float32(amax / (E4M3_MAX * E2M1_MAX))) if amax > 0 else 1.0


def quantize_nvfp4(x: np.ndarray, *, block_size: int = NVFP4_BLOCK, axis: int = -1,
                   tensor_scale: float | None = None) -> BlockScaledTensor:
    """NVFP4: E2M1 elements, an E4M3 scale per ``block_size`` (16) along ``axis``, an FP32 tensor
    scale (``tensor_scale``, default :func:`nvfp4_tensor_scale`). A block holding NaN or infinity
    gets the E4M3 NaN scale; a block whose scale rounds to zero stores zeros."""
    e2m1, e4m3 = FORMATS["e2m1"], FORMATS["e4m3"]
    v, block, axis = _check(x, block_size, axis)
    g = float(np.float32(tensor_scale)) if tensor_scale is not None else nvfp4_tensor_scale(v)
    if not np.isfinite(g) or g <= 0:
        raise ValueError(f"tensor_scale must be a positive finite number, got {tensor_scale!r}")
    blocks = _blocks(v, axis, block)
    amax = np.max(np.abs(blocks), axis=-1)
    bad = ~np.isfinite(amax)
    scale = round_to_element(e4m3, np.where(bad, 0.0, amax) / E2M1_MAX / g)
    divisor = np.where(scale > 0, scale * g, 1.0)[..., None]
    codes = _unblocks(element_codes(e2m1, np.where((scale > 0)[..., None] & ~bad[..., None], blocks / divisor, 0.0)),
                      axis, v.shape)
    scales = np.where(bad, encode(e4m3, np.array(np.nan)), encode(e4m3, scale)).astype(np.int64)
    return BlockScaledTensor(e2m1, codes, scales, block, axis, "e4m3", tensor_scale=g)
