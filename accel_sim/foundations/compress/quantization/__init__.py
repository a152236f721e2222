"""Quantizers: uniform int-k, log2, binary, ternary (TWN, TTQ), k-means weight sharing and
dynamic fixed point, each returning a :class:`QuantizedTensor`; and block-scaled numbers (OCP MX
v1.0, NVFP4), returning a :class:`BlockScaledTensor`."""
from accel_sim.foundations.compress.quantization.binary_ternary import (
    TTQ_THRESHOLD_FACTOR,
    TWN_THRESHOLD_FACTOR,
    quantize_binary,
    quantize_ternary,
    quantize_ttq,
)
from accel_sim.foundations.compress.quantization.fixed_point import (
    COURBARIAUX_MAX_OVERFLOW_RATE,
    leading_bit_positions,
    max_rule_integer_length,
    overflow_rate,
    quantize_dynamic_fixed_point,
    quantize_fixed_point,
    update_integer_length,
)
from accel_sim.foundations.compress.quantization.kmeans import (
    linear_centroids,
    quantize_kmeans,
    weight_sharing_compression_rate,
)
from accel_sim.foundations.compress.quantization.microscaling import (
    BLOCK_FORMATS,
    BlockScaledTensor,
    quantize_block_format,
    quantize_mx,
    quantize_nvfp4,
)
from accel_sim.foundations.compress.quantization.minifloat import FORMATS as ELEMENT_FORMATS
from accel_sim.foundations.compress.quantization.minifloat import ElementFormat
from accel_sim.foundations.compress.quantization.tensor import ROUNDING_MODES, QuantizedTensor, Rounding
from accel_sim.foundations.compress.quantization.uniform import quantize_log2, quantize_uniform

__all__ = [
    "BLOCK_FORMATS",
    "ELEMENT_FORMATS",
    "BlockScaledTensor",
    "ElementFormat",
    "quantize_block_format",
    "quantize_mx",
    "quantize_nvfp4",
    "COURBARIAUX_MAX_OVERFLOW_RATE",
    "ROUNDING_MODES",
    "TTQ_THRESHOLD_FACTOR",
    "TWN_THRESHOLD_FACTOR",
    "QuantizedTensor",
    "Rounding",
    "leading_bit_positions",
    "linear_centroids",
    "max_rule_integer_length",
    "overflow_rate",
    "quantize_binary",
    "quantize_dynamic_fixed_point",
    "quantize_fixed_point",
    "quantize_kmeans",
    "quantize_log2",
    "quantize_ternary",
    "quantize_ttq",
    "quantize_uniform",
    "update_integer_length",
    "weight_sharing_compression_rate",
]
