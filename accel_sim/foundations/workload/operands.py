"""Concrete operand tensors of a layer: generated from its spec (seeded) or loaded from ``.npz``.

Sparse models (EIE, SCNN, the sparse PE array, ...) need the actual positions of the
non-zeros, not only densities. :func:`layer_operands` gives them, deterministically:

- weights: seeded Gaussian weights, pruned (``accel_sim.foundations.compress.pruning``) to the layer's
  ``weight_density`` with ``operands.weight_pattern``; N:M layers (``weight_sparsity``) are
  N:M-pruned along the reduction axis first. Layouts: conv ``(K, C/groups, R, S)``
  (output channels first); GEMM / FC ``(k, n)`` (reduction first).
- inputs: post-ReLU activations with exactly ``round(input_density x size)`` non-zeros
  (``accel_sim.foundations.compress.activations``). Layouts: conv ``(batch, C, H, W)``; GEMM ``(m, k)``.

A payload file replaces either tensor by real data. Tensors above
:data:`MAX_OPERAND_ELEMENTS` are refused before anything is allocated.

Lazily: :func:`layer_operands` allocates nothing; each tensor is generated (or its payload
read) the first time a model reads ``weights`` / ``inputs``. A model that only counts
shapes (dense cycles never look at values) asks only for the hashes, and those of a
generated tensor need no tensor.

Within :func:`accel_sim.foundations.workload.operand_cache.shared_operands` (``reproduce all``), a large
generated tensor is made by the first process that needs it and read back by the others.

Hashes (16 hex digits, results carry them as ``weight_hash`` / ``input_hash``, so a run can
be traced to its data):

- loaded tensor: :func:`content_hash`, ``sha256`` of dtype, shape and bytes;
- generated tensor: :func:`spec_hash`, ``sha256`` of everything its generation reads (the
  seed stream, shape and layout, density, N:M, pattern, block, dtype), the generator's
  version :data:`GENERATOR_VERSION` and numpy's version (the bit streams of
  ``np.random.Generator`` are not promised across numpy releases). The tensor is a pure
  function of that text, so equal hashes mean equal data and different data means
  different text; two specs that happen to give the same tensor (e.g. a seed change on a
  dense all-ones mask) get different hashes, which is only conservative. A change to the
  generation code must bump :data:`GENERATOR_VERSION`.
"""
from __future__ import annotations

import hashlib
import math
import os
import zipfile
import zlib
from functools import cached_property, lru_cache

import numpy as np

from accel_sim.foundations.compress._checks import MAX_TENSOR_ELEMENTS, count_for_density
from accel_sim.foundations.compress._selection import keep_top
from accel_sim.foundations.compress.activations import synthetic_activations
from accel_sim.foundations.compress.pruning import (
    block_mask,
    filter_mask,
    granularity_mask,
    nm_mask,
)
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.memo import ShapeMemo
from accel_sim.foundations.workload.layer import ConvLayer, Layer
from accel_sim.foundations.workload.operand_cache import forget, nonzeros_through_cache, through_cache

# 2^31 float32 values = 8 GiB: beyond any layer of the shipped networks (VGG-16 fc6 has
# 103 M weights) and beyond what a 24 GiB machine can hold with a model's working copies.
# The same limit as every shape-driven allocation of the compress package.
MAX_OPERAND_ELEMENTS = MAX_TENSOR_ELEMENTS
_WEIGHT_STREAM, _INPUT_STREAM = 0, 1
# Bump when the generated tensors change for the same layer (a new pruning rule, another
# random stream): the hashes of generated operands are computed from the spec, not the data.
GENERATOR_VERSION = 2  # 2: 'channel' prunes input channels (1: output channels, now 'filter')


class LayerOperands:
    """A layer's weights and inputs (float32, zeros exact, read-only) with their hashes.

    ``LayerOperands(layer=layer)`` (what :func:`layer_operands` makes): a generated tensor is made
    on first access of ``weights`` / ``inputs``, and its hash never needs it (module doc); a payload
    is read and checked when the operands are made. ``LayerOperands(weights, inputs, weight_hash,
    input_hash)``: given tensors (a test's hand-made operands)."""

    def __init__(self, weights: np.ndarray | None = None, inputs: np.ndarray | None = None,
                 weight_hash: str | None = None, input_hash: str | None = None, *, layer: Layer | None = None) -> None:
        given = {"weights": weights, "inputs": inputs, "weight_hash": weight_hash, "input_hash": input_hash}
        if layer is None:
            if any(value is None for value in given.values()):
                raise TypeError("LayerOperands needs a layer, or weights, inputs, weight_hash and input_hash")
            self.layer = None
            self.__dict__.update(given)  # the cached properties' values
            return
        if any(value is not None for value in given.values()):
            raise TypeError("LayerOperands takes a layer or the four values, not both")
        self.layer = layer
        self._shapes = {"weights": weight_shape(layer), "inputs": input_shape(layer)}
        payload = layer.operands.payload
        if payload:  # read (and checked) at once: its hashes need its content anyway
            for what in self._shapes:
                self._check_size(what)
        self._loaded = _payload_arrays(payload, self._shapes) if payload else {}
        self._in_payload = frozenset(self._loaded)

    def _check_size(self, what: str) -> None:
        """Refuse a tensor above :data:`MAX_OPERAND_ELEMENTS` before allocating it (a layer whose
        model never reads values, e.g. a dense GEMM, is not limited: nothing is allocated)."""
        shape = self._shapes[what]
        if math.prod(shape) > MAX_OPERAND_ELEMENTS:
            raise InputError.single(self.layer.name, what, f"{math.prod(shape):,} elements {shape} exceed the "
                                    f"limit of {MAX_OPERAND_ELEMENTS:,} (refused before allocating)")

    @cached_property
    def weights(self) -> np.ndarray:
        self._check_size("weights")
        shape = self._shapes["weights"]
        if "weights" in self._in_payload:
            weights = self._loaded["weights"]
        elif self._drawn_nonzeros is not None:   # the same tensor, from its non-zeros (drawn once, or shared)
            weights = _scattered(shape, *self._drawn_nonzeros)
        else:
            weights = through_cache(self.weight_hash, shape, lambda: _generated_weights(self.layer, shape))
        weights.flags.writeable = False
        return weights

    @cached_property
    def weight_nonzeros(self) -> tuple[np.ndarray, np.ndarray]:
        """Flat positions (ascending, in the stored layout) and values of the weights' non-zeros
        (``!= 0``), read-only. A generated magnitude-pruned tensor gives them without
        the full-size tensor (:func:`_pruned_nonzeros`: VGG-16's fc6 holds 4 % of 103 M weights);
        ``weights`` are made from them (the same bits). Within ``shared_operands`` they are read
        from (or written to) the shared folder as the tensor's positions and values."""
        found = self._drawn_nonzeros
        if found is None:
            flat = self.weights.reshape(-1)
            index = np.flatnonzero(flat)
            found = index, flat[index]
            for array in found:
                array.flags.writeable = False
        return found

    @cached_property
    def _drawn_nonzeros(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``weight_nonzeros`` of generated magnitude-pruned weights (:func:`_pruned_nonzeros`, through the
        operand cache), read-only; None for other weights, or when :func:`_pruned_nonzeros` leaves them to the
        full-size pruning."""
        if self.layer is None or "weights" in self._in_payload or not _prunes_by_magnitude(self.layer):
            return None
        self._check_size("weights")
        layer, shape = self.layer, self._shapes["weights"]
        found = nonzeros_through_cache(self.weight_hash, shape, lambda: _pruned_nonzeros(layer, shape))
        for array in found or ():
            array.flags.writeable = False
        return found

    @cached_property
    def inputs(self) -> np.ndarray:
        self._check_size("inputs")
        if "inputs" in self._in_payload:
            inputs = self._loaded["inputs"]
        else:
            layer = self.layer
            inputs = through_cache(self.input_hash, self._shapes["inputs"], lambda: synthetic_activations(
                self._shapes["inputs"], density=layer.input_density, seed=_seed(layer, _INPUT_STREAM),
                pattern=layer.operands.activation_pattern))
        inputs.flags.writeable = False
        return inputs

    @cached_property
    def weight_hash(self) -> str:
        if "weights" in self._in_payload:
            return content_hash(self.weights)
        return spec_hash(weight_spec(self.layer))

    @cached_property
    def input_hash(self) -> str:
        if "inputs" in self._in_payload:
            return content_hash(self.inputs)
        return spec_hash(input_spec(self.layer))

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


def spec_hash(spec: dict[str, object]) -> str:
    """``sha256`` of a generated tensor's spec (:func:`weight_spec`, :func:`input_spec`) with the
    generator and numpy versions, as 16 hex digits."""
    text = repr(sorted({**spec, "generator": GENERATOR_VERSION, "numpy": np.__version__}.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def weight_spec(layer: Layer) -> dict[str, object]:
    """Everything :func:`_generated_weights` reads from the layer."""
    return {"tensor": "weights", "seed": _seed(layer, _WEIGHT_STREAM), "shape": weight_shape(layer),
            "layout": layer.kind, "density": repr(float(layer.weight_density)),
            "nm": None if layer.weight_sparsity is None else (layer.weight_sparsity.n, layer.weight_sparsity.m),
            "pattern": layer.operands.weight_pattern, "block": layer.operands.block, "dtype": "float32"}


def input_spec(layer: Layer) -> dict[str, object]:
    """Everything the input generation reads from the layer."""
    return {"tensor": "inputs", "seed": _seed(layer, _INPUT_STREAM), "shape": input_shape(layer),
            "density": repr(float(layer.input_density)), "pattern": layer.operands.activation_pattern,
            "dtype": "float32"}


def layer_operands(layer: Layer) -> LayerOperands:
    """The layer's operands, lazily (cached: the last few layers asked for are kept)."""
    return _cached_operands(layer)


class _RecentOperands:
    """The last few layers' operands (:func:`layer_operands`); ``cache_clear`` forgets them and the tensors the
    operand cache keeps (:func:`~accel_sim.foundations.workload.operand_cache.forget`), as a new process starts."""

    def __init__(self) -> None:
        self._recent = lru_cache(maxsize=4)(lambda layer: LayerOperands(layer=layer))

    def __call__(self, layer: Layer) -> LayerOperands:
        return self._recent(layer)

    def cache_clear(self) -> None:
        self._recent.cache_clear()
        forget()


_cached_operands = _RecentOperands()


def _seed(layer: Layer, stream: int) -> list[int]:
    return [layer.operands.seed, zlib.crc32(layer.name.encode()), stream]


def _prunes_by_magnitude(layer: Layer) -> bool:
    """The layer's generated weights are pruned by :func:`_magnitude_pruned` (unstructured, no N:M,
    density at most :data:`_SPARSE_SELECTION`)."""
    return (layer.weight_sparsity is None and layer.operands.weight_pattern == "unstructured"
            and layer.weight_density <= _SPARSE_SELECTION)


def _generated_weights(layer: Layer, shape: tuple[int, ...]) -> np.ndarray:
    if _prunes_by_magnitude(layer):
        found = _pruned_nonzeros(layer, shape)
        if found is not None:
            return _scattered(shape, *found)
        return _magnitude_pruned(layer, np.random.default_rng(_seed(layer, _WEIGHT_STREAM)).standard_normal(
            shape, dtype=np.float32))
    rng = np.random.default_rng(_seed(layer, _WEIGHT_STREAM))
    dense = rng.standard_normal(shape, dtype=np.float32)
    pattern = layer.operands.weight_pattern
    dense[dense == 0] = _DRAWN_ZERO  # a drawn exact zero would lower the density below its target
    matrix = weight_matrix(layer, dense)  # a view: masks below are built on the GEMM view
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
        elif pattern == "filter":  # whole output columns of the GEMM view
            chosen = filter_mask(kept, density=layer.weight_density, axis=1)
        else:  # vector, kernel, channel: chosen on the stored layout, read back in the GEMM view
            chosen = weight_matrix(layer, _layout_mask(layer, pattern, _stored(layer, kept, shape)))
        mask = chosen if mask is None else mask & chosen
    pruned = matrix if mask is None else np.where(mask, matrix, np.float32(0))
    return np.ascontiguousarray(pruned.T.reshape(shape) if isinstance(layer, ConvLayer) else pruned)


def _stored(layer: Layer, matrix: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The stored layout of a GEMM-view matrix (inverse of :func:`weight_matrix`)."""
    return matrix.T.reshape(shape) if isinstance(layer, ConvLayer) else matrix


def _layout_mask(layer: Layer, pattern: str, weights: np.ndarray) -> np.ndarray:
    """Vector / kernel / channel keep-mask of weights in the stored layout (:func:`granularity_mask`;
    a GEMM's vectors are runs of ``block`` weights along the reduction)."""
    return granularity_mask(weights, pattern, density=layer.weight_density, run=layer.operands.block)


# At or below this density the unstructured pruning keeps only the candidate entries
# (:func:`_magnitude_pruned`); above it the full-size mask is as cheap.
_SPARSE_SELECTION = 0.5
_DRAWN_ZERO = np.float32(1e-3)  # what a drawn exact zero becomes (a tiny weight, never a pruned one)
_SAMPLE = 1 << 16  # entries sampled to bound the pruning threshold from below
_SCAN_CHUNK = 1 << 22  # entries compared with the bound per numpy call (no full-size |w| array)
_DRAW_CHUNK = 1 << 18  # weights drawn per numpy call by :func:`_pruned_nonzeros` (1 MiB of float32: stays in cache)


def _sampled_bound(values: np.ndarray, keep: int, size: int) -> np.float32:
    """A likely lower bound of the ``keep``-th largest magnitude of ``size`` weights, read from a strided
    sample of ``values`` (about :data:`_SAMPLE` of them): the sample's quantile for ``keep / size``, taken
    with a margin (a rank 1.25 times as deep, plus 64). The callers check it (at least ``keep`` entries
    reach it) and fall back to no bound."""
    sample = np.abs(values[::max(1, values.size // _SAMPLE)])
    rank = min(sample.size, int(math.ceil(keep / size * sample.size * 1.25)) + 64)
    return np.partition(sample, sample.size - rank)[sample.size - rank]


def _magnitude_pruned(layer: Layer, dense: np.ndarray) -> np.ndarray:
    """``dense`` pruned to the layer's density by magnitude: the same entries as ``keep_top`` of
    ``|w|`` in C order of the GEMM view (highest first, ties to the lower GEMM-view index), found
    without a full-size sort or mask.

    A lower bound of the threshold is read from a strided sample; only the entries at or above
    it are partitioned. The bound is checked (at least ``keep`` entries reach it), else every
    entry is a candidate: the answer never depends on the sample."""
    flat = dense.ravel()   # a view: the result is written into ``dense`` (no second full-size array)
    size = flat.size
    keep = count_for_density(layer.weight_density, size)
    if keep == 0:
        dense.fill(0)
        return dense
    bound = _sampled_bound(flat, keep, size)
    if bound <= _DRAWN_ZERO:  # drawn zeros (raised to _DRAWN_ZERO) may be kept: raise them first
        dense[dense == 0] = _DRAWN_ZERO
        bound = np.float32(0)
    # else no entry below the bound is kept, and raising drawn zeros changes only such entries
    candidates = np.concatenate([np.flatnonzero(np.abs(flat[lo:lo + _SCAN_CHUNK]) >= bound) + lo
                                 for lo in range(0, size, _SCAN_CHUNK)])
    if candidates.size < keep:
        candidates = np.arange(size)
    chosen = candidates[_kept(layer, dense.shape, candidates, np.abs(flat[candidates]), keep)[0]]
    kept = flat[chosen]
    dense.fill(0)
    flat[chosen] = kept
    return dense


def _kept(layer: Layer, shape: tuple[int, ...], candidates: np.ndarray, magnitudes: np.ndarray,
          keep: int) -> tuple[np.ndarray, np.float32]:
    """Positions in ``candidates`` (ascending flat indices of the stored layout, every entry at or
    above the threshold among them, at least ``keep``) of the ``keep`` largest ``magnitudes``, ties
    to the lower index in the GEMM view's C order (``keep_top``'s rule); and the threshold."""
    threshold = np.partition(magnitudes, magnitudes.size - keep)[magnitudes.size - keep]
    above = np.flatnonzero(magnitudes > threshold)
    ties = np.flatnonzero(magnitudes == threshold)
    if ties.size > keep - above.size:
        ties = ties[np.argsort(_gemm_view_index(layer, shape, candidates[ties]), kind="stable")][:keep - above.size]
    return np.concatenate([above, ties]), threshold


def _pruned_nonzeros(layer: Layer, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray] | None:
    """Flat positions (ascending) and values of the entries :func:`_magnitude_pruned` keeps of the
    layer's drawn weights, drawn :data:`_DRAW_CHUNK` at a time from the same stream (numpy's
    Gaussian draws fill an array in order: chunks give the same numbers), keeping only the
    candidates: no full-size array. ``None`` when the threshold is at most :data:`_DRAWN_ZERO` (drawn
    zeros could be kept; :func:`_magnitude_pruned` decides).

    The first chunk's quantile, with a margin, bounds the threshold from below; checked at the end
    (at least ``keep`` entries reach it), else the chunks are drawn again with no bound."""
    size = math.prod(shape)
    keep = count_for_density(layer.weight_density, size)
    if keep == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    for bounded in (True, False):
        rng = np.random.default_rng(_seed(layer, _WEIGHT_STREAM))
        chunk, magnitudes = np.empty((2, min(size, _DRAW_CHUNK)), dtype=np.float32)
        bound, positions, values = np.float32(0), [], []
        for lo in range(0, size, chunk.size):
            part = chunk[:min(chunk.size, size - lo)]
            rng.standard_normal(dtype=np.float32, out=part)
            magnitude = np.abs(part, out=magnitudes[:part.size])
            if bounded and lo == 0:   # as _magnitude_pruned's, from the first chunk
                bound = _sampled_bound(magnitude, keep, size)
            found = np.flatnonzero(magnitude >= bound)
            positions.append(found + lo)
            values.append(part[found])
        index, drawn = np.concatenate(positions), np.concatenate(values)
        if index.size >= keep:
            break
    chosen, threshold = _kept(layer, shape, index, np.abs(drawn), keep)
    if threshold <= _DRAWN_ZERO:
        return None
    kept = np.zeros(index.size, dtype=bool)
    kept[chosen] = True   # ascending positions without a sort
    return index[kept], drawn[kept]


def _scattered(shape: tuple[int, ...], index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """A float32 tensor of ``shape``, zero but ``values`` at flat ``index``."""
    dense = np.zeros(shape, dtype=np.float32)
    dense.reshape(-1)[index] = values
    return dense


def _gemm_view_index(layer: Layer, shape: tuple[int, ...], flat: np.ndarray) -> np.ndarray:
    """C-order index in the GEMM view (:func:`weight_matrix`) of flat indices of the stored layout."""
    if not isinstance(layer, ConvLayer):
        return flat
    filters, per_filter = shape[0], math.prod(shape[1:])  # stored (K, C/g R S), GEMM view its transpose
    return (flat % per_filter) * filters + flat // per_filter


# payloads' arrays read (or just written, keep_payload) in this process: two of the SIMT studies' 4096 x 4096
# float32 matrices, each read by several layers (batches) of a study
PAYLOAD_MEMO_BYTES = 128 << 20
_payloads = ShapeMemo(capacity=None, max_bytes=PAYLOAD_MEMO_BYTES)


def _payload_key(path: str) -> tuple:
    """The file by its path and its members' names, sizes and CRC-32s (the archive's directory, read without the
    arrays): a payload written again with other values is read again."""
    with zipfile.ZipFile(path) as archive:
        return os.path.abspath(path), tuple((info.filename, info.file_size, info.CRC) for info in archive.infolist())


def _payload_arrays(path: str, shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """:func:`_read_payload`'s arrays (read-only), read once per file in this process; the headers are checked
    against ``shapes`` on every call."""
    headers = _checked_headers(path, shapes)
    kept = dict(_payloads.get(_payload_key(path), lambda: _read_only_items(_read_payload(path, shapes))))
    return {name: kept[name] for name in shapes if name in headers}


def keep_payload(path: str | os.PathLike, arrays: dict[str, np.ndarray]) -> None:
    """Keep ``arrays``, just written to the ``.npz`` payload ``path`` (``np.savez(path, **arrays)``), in this process:
    a layer reading that payload takes them instead of reading the file back (the same float32 values, checked as
    a read checks them)."""
    path = os.fspath(path)
    _payloads.get(_payload_key(path), lambda: _read_only_items(_checked_values(path, arrays)))


def _read_only_items(arrays: dict[str, np.ndarray]) -> tuple[tuple[str, np.ndarray], ...]:
    for array in arrays.values():
        array.flags.writeable = False
    return tuple(arrays.items())


def _read_payload(path: str, shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """The arrays of a ``.npz`` payload, checked: names, shapes and dtypes from the array
    headers before anything is read (a wrong shape never allocates), then finiteness."""
    headers = _checked_headers(path, shapes)
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in shapes if name in headers}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as err:
        raise InputError.single(path, "operands", f"not a readable .npz archive ({err})") from None
    return _checked_values(path, arrays)


def _checked_values(path: str, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``arrays`` as float32 (C order), refused unless finite."""
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
    the operands (a dense systolic array) refuses a wrong payload as EIE does. A vector layer
    has no payload."""
    if getattr(layer, "operands", None) is not None and layer.operands.payload:
        _checked_headers(layer.operands.payload, {"weights": weight_shape(layer), "inputs": input_shape(layer)})


# Precisions whose weights take at most these many magnitudes per filter: binary {-a, +a},
# ternary {-a, 0, +a} (a > 0 per output column of the GEMM view; XNOR-Net / TWN scaling).
_CODED_MAGNITUDES = {"binary": ("+/-alpha", False), "ternary": ("0 or +/-alpha", True)}


def check_precision_payload(layer: Layer) -> None:
    """A binary / ternary layer's payload weights are binary / ternary: in every filter (output
    column of the GEMM view) one magnitude alpha > 0 (and zeros for ternary). Checked when the
    workload is loaded, so a real operand file that is not what the layer says is refused. A vector
    layer has neither payload nor precision."""
    if getattr(layer, "precision", None) not in _CODED_MAGNITUDES or not layer.operands.payload:
        return
    path = layer.operands.payload
    if "weights" not in _checked_headers(path, {"weights": weight_shape(layer), "inputs": input_shape(layer)}):
        return
    expected, zeros_allowed = _CODED_MAGNITUDES[layer.precision]
    matrix = np.abs(weight_matrix(layer, _read_payload(path, {"weights": weight_shape(layer)})["weights"]))
    nonzero = matrix != 0
    if not zeros_allowed and not nonzero.all():
        raise InputError.single(path, "weights", f"layer {layer.name} has precision {layer.precision}: expected "
                                f"values {expected} per filter, found zeros")
    alpha = matrix.max(axis=0)
    bad = np.flatnonzero(((matrix != alpha) & nonzero).any(axis=0) | (alpha == 0))
    if bad.size:
        column = int(bad[0])
        found = np.unique(matrix[:, column])[:4]
        raise InputError.single(path, "weights", f"layer {layer.name} has precision {layer.precision}: expected "
                                f"values {expected} per filter, filter {column} has magnitudes "
                                f"{', '.join(f'{v:g}' for v in found)}")


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
