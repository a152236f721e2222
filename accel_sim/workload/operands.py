"""Concrete operand tensors of a layer: generated from its spec (seeded) or loaded from ``.npz``.

Sparse models (EIE, SCNN, the sparse PE array, ...) need the actual positions of the
non-zeros, not only densities. :func:`layer_operands` gives them, deterministically:

- weights: seeded Gaussian weights, pruned (``accel_sim.compress.pruning``) to the layer's
  ``weight_density`` with ``operands.weight_pattern``; N:M layers (``weight_sparsity``) are
  N:M-pruned along the reduction axis first. Layouts: conv ``(K, C/groups, R, S)``
  (output channels first); GEMM / FC ``(k, n)`` (reduction first).
- inputs: post-ReLU activations with exactly ``round(input_density x size)`` non-zeros
  (``accel_sim.compress.activations``). Layouts: conv ``(batch, C, H, W)``; GEMM ``(m, k)``.

A payload file replaces either tensor by real data. Each tensor has a content hash
(``sha256`` of dtype, shape and bytes) that results carry, so a run can be traced to
its data. Tensors above :data:`MAX_OPERAND_ELEMENTS` are refused before anything is
allocated.
"""
from __future__ import annotations

import hashlib
import math
import zipfile
import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from accel_sim.compress._checks import MAX_TENSOR_ELEMENTS, count_for_density
from accel_sim.compress._selection import keep_top
from accel_sim.compress.activations import synthetic_activations
from accel_sim.compress.pruning import (
    block_mask,
    filter_mask,
    nm_mask,
)
from accel_sim.errors import InputError
from accel_sim.workload.layer import ConvLayer, Layer

# 2^31 float32 values = 8 GiB: beyond any layer of the shipped networks (VGG-16 fc6 has
# 103 M weights) and beyond what a 24 GiB machine can hold with a model's working copies.
# The same limit as every shape-driven allocation of the compress package.
MAX_OPERAND_ELEMENTS = MAX_TENSOR_ELEMENTS
_WEIGHT_STREAM, _INPUT_STREAM = 0, 1


@dataclass(frozen=True, eq=False)
class LayerOperands:
    """A layer's weights and inputs (float32, zeros exact) with their content hashes."""

    weights: np.ndarray
    inputs: np.ndarray
    weight_hash: str
    input_hash: str

    @property
    def hashes(self) -> dict[str, str]:
        return {"weight_hash": self.weight_hash, "input_hash": self.input_hash}


def weight_shape(layer: Layer) -> tuple[int, ...]:
    if isinstance(layer, ConvLayer):
        return (layer.out_channels, layer.in_channels // layer.groups, layer.kernel_h, layer.kernel_w)
    return (layer.k, layer.n)


def input_shape(layer: Layer) -> tuple[int, ...]:
    if isinstance(layer, ConvLayer):
        return (layer.batch, layer.in_channels, layer.in_h, layer.in_w)
    return (layer.m, layer.k)


def weight_matrix(layer: Layer, weights: np.ndarray) -> np.ndarray:
    """The GEMM view of the weights: ``(reduction, outputs)`` = conv ``(C/g*R*S, K)``, GEMM ``(k, n)``.

    For grouped convs the rows of every group are the same C/g*R*S positions of that
    group's filters (columns ``g*K/g .. (g+1)*K/g``).
    """
    if isinstance(layer, ConvLayer):
        return weights.reshape(weights.shape[0], -1).T
    return weights


def input_nonzero(layer: Layer, inputs: np.ndarray, group: int) -> np.ndarray:
    """Non-zero mask of one group's zero-padded input, ``(batch, C/g, Hp, Wp)``; a GEMM / FC layer's
    ``(m, k)`` input is ``m`` one-pixel images of ``k`` channels."""
    if not isinstance(layer, ConvLayer):
        return (inputs != 0)[:, :, None, None]
    cg = layer.in_channels // layer.groups
    nz = inputs[:, group * cg:(group + 1) * cg] != 0
    return np.pad(nz, ((0, 0), (0, 0), (layer.pad_top, layer.pad_bottom), (layer.pad_left, layer.pad_right)))


def content_hash(array: np.ndarray) -> str:
    """``sha256`` of dtype, shape and C-order bytes, as 16 hex digits."""
    digest = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    digest.update(memoryview(np.ascontiguousarray(array)).cast("B"))
    return digest.hexdigest()[:16]


def layer_operands(layer: Layer) -> LayerOperands:
    """The layer's operands (cached: the last few layers asked for are kept)."""
    return _cached_operands(layer)


@lru_cache(maxsize=4)
def _cached_operands(layer: Layer) -> LayerOperands:
    w_shape, x_shape = weight_shape(layer), input_shape(layer)
    for what, shape in (("weights", w_shape), ("inputs", x_shape)):
        if math.prod(shape) > MAX_OPERAND_ELEMENTS:
            raise InputError.single(layer.name, what, f"{math.prod(shape):,} elements {shape} exceed the "
                                    f"limit of {MAX_OPERAND_ELEMENTS:,} (refused before allocating)")
    loaded = _read_payload(layer.operands.payload, {"weights": w_shape, "inputs": x_shape}) \
        if layer.operands.payload else {}
    weights = loaded.get("weights")
    if weights is None:
        weights = _generated_weights(layer, w_shape)
    inputs = loaded.get("inputs")
    if inputs is None:
        inputs = synthetic_activations(x_shape, density=layer.input_density, seed=_seed(layer, _INPUT_STREAM),
                                       pattern=layer.operands.activation_pattern)
    for array in (weights, inputs):
        array.flags.writeable = False
    return LayerOperands(weights, inputs, content_hash(weights), content_hash(inputs))


def _seed(layer: Layer, stream: int) -> list[int]:
    return [layer.operands.seed, zlib.crc32(layer.name.encode()), stream]


def _generated_weights(layer: Layer, shape: tuple[int, ...]) -> np.ndarray:
    rng = np.random.default_rng(_seed(layer, _WEIGHT_STREAM))
    dense = rng.standard_normal(shape, dtype=np.float32)
    dense[dense == 0] = np.float32(1e-3)  # a drawn exact zero would lower the density below its target
    matrix = weight_matrix(layer, dense)  # a view: masks below are built on the GEMM view
    pattern = layer.operands.weight_pattern
    mask = None  # None: keep everything (saves a full-size pass on dense layers)
    if layer.weight_sparsity is not None:
        mask = nm_mask(matrix, n=layer.weight_sparsity.n, m=layer.weight_sparsity.m, axis=0)
    if layer.weight_density < 1.0 and pattern != "nm":
        kept = matrix if mask is None else np.where(mask, matrix, np.float32(0))
        if pattern == "unstructured":
            # magnitude_mask's rule (keep_top of |w| in C order of the GEMM view), without its
            # input checks: these weights are finite by construction.
            chosen = keep_top(np.abs(kept).ravel(), count_for_density(layer.weight_density, kept.size))
            chosen = chosen.reshape(kept.shape)
        elif pattern == "block":
            chosen = block_mask(kept, block_size=layer.operands.block, density=layer.weight_density)
        else:  # channel: whole output columns (filters)
            chosen = filter_mask(kept, density=layer.weight_density, axis=1)
        mask = chosen if mask is None else mask & chosen
    pruned = matrix if mask is None else np.where(mask, matrix, np.float32(0))
    return np.ascontiguousarray(pruned.T.reshape(shape) if isinstance(layer, ConvLayer) else pruned)


def _read_payload(path: str, shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """The arrays of a ``.npz`` payload, checked: names, shapes and dtypes from the array
    headers before anything is read (a wrong shape never allocates), then finiteness."""
    headers = _checked_headers(path, shapes)
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in shapes if name in headers}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as err:
        raise InputError.single(path, "operands", f"not a readable .npz archive ({err})") from None
    out = {}
    for name, array in arrays.items():
        with np.errstate(over="ignore"):
            converted = np.ascontiguousarray(array, dtype=np.float32)
        if not np.isfinite(converted).all():
            raise InputError.single(path, name, "expected finite numbers (found NaN or infinity, or values "
                                    "beyond the float32 range)")
        out[name] = converted
    return out


def check_payload(layer: Layer) -> None:
    """The layer's ``.npz`` payload (if any) matches it: array names, shapes and dtypes, from the
    headers only. The workload loader calls it for every layer, so a family that never reads
    the operands (a dense systolic array) refuses a wrong payload as EIE does."""
    if layer.operands.payload:
        _checked_headers(layer.operands.payload, {"weights": weight_shape(layer), "inputs": input_shape(layer)})


def _checked_headers(path: str, shapes: dict[str, tuple[int, ...]]) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    headers = _payload_headers(path)
    for name, (shape, dtype) in headers.items():
        if name not in shapes:
            raise InputError.single(path, name, f"unexpected array; a payload holds {' and / or '.join(shapes)}")
        if shape != shapes[name]:
            raise InputError.single(path, name, f"shape {shape} does not match the layer's {shapes[name]}")
        if dtype.kind not in _PAYLOAD_KINDS:
            raise InputError.single(path, name, f"expected real numbers (bool, int or float), got dtype {dtype}")
    return headers


_PAYLOAD_KINDS = "biuf"  # bool, signed / unsigned integer, real float


def _payload_headers(path: str) -> dict[str, tuple[tuple[int, ...], np.dtype]]:
    """Name -> (shape, dtype) of every array in a ``.npz``, read from the ``.npy`` headers only."""
    headers = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                with archive.open(info) as member:
                    version = np.lib.format.read_magic(member)
                    read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                                   else np.lib.format.read_array_header_2_0)
                    shape, _fortran, dtype = read_header(member)
                headers[name] = (tuple(int(d) for d in shape), dtype)
    except FileNotFoundError:
        raise InputError.single(path, "operands", "payload file not found") from None
    except (zipfile.BadZipFile, ValueError, OSError, EOFError, KeyError) as err:
        raise InputError.single(path, "operands", f"not a readable .npz archive ({err})") from None
    return headers
