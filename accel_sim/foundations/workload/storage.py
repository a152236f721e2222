"""Per-layer storage of a workload's weights in one sparse or block-scaled format (``accel-sim storage``).

Block-scaled formats (OCP MX ``mxfp4``, ``mxfp8_e4m3``, ...; ``nvfp4``) store every weight as an element of
the format and one scale per block along the reduction: values_bits the elements, metadata_bits the scales.

Each layer's weights (generated at its densities and pattern, or loaded from its payload:
:func:`accel_sim.foundations.workload.operands.layer_operands`) are encoded as the matrix an
accelerator stores: rows = outputs (filters / output neurons), columns = the reduction
(``C/groups x R x S`` of a conv, ``k`` of a GEMM), i.e. the transpose of the GEMM view.
That is EIE's and Deep Compression's orientation; N:M groups run along the rows
(the reduction).

Widths:

- value bits: the ``value_bits`` argument, else the layer's ``weight_bits`` (workload file),
  else :data:`DEFAULT_VALUE_BITS`.
- index bits: the ``index_bits`` argument (any format with an index field; an error if it
  cannot hold the largest index), else the layer's ``index_bits`` for the relative-index /
  zero-run formats (eie, scnn, rle), else the format's own default.

With ``huffman=True`` the stored value slots are replaced by weight-sharing codes
(k-means with linear initialisation, ``2**value_bits`` entries, code 0 = the exact zero of
pruned weights and filler entries; Deep Compression) and the value stream, plus the index
stream of the formats that store one index per entry (eie, scnn, rle, csr, csc, bsr), are
Huffman coded. ``huffman_bits`` is the total with those streams at their Huffman size;
``entropy_bits`` the same with the Shannon bound instead.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from accel_sim.foundations.compress.formats import FORMATS, EIEInterleavedCSC, SparseFormat
from accel_sim.foundations.compress.formats.bsr import BSR
from accel_sim.foundations.compress.formats.compressed import CompressedSparse
from accel_sim.foundations.compress.formats.run_length import RunLengthEncoded
from accel_sim.foundations.compress.huffman import huffman_coded_size
from accel_sim.foundations.compress.quantization.kmeans import quantize_kmeans
from accel_sim.foundations.compress.quantization.microscaling import BLOCK_FORMATS, block_format, quantize_block_format
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import ConvLayer, Layer, Network, single_layers
from accel_sim.foundations.workload.operands import layer_operands, weight_matrix, weight_shape

# 16-bit fixed point: the weight width of the EIE and SCNN datapaths (Han et al. ISCA 2016,
# Parashar et al. ISCA 2017) when neither the command nor the workload gives one.
DEFAULT_VALUE_BITS = 16
# Formats whose ``index_bits`` / ``run_bits`` is a relative index or zero run, where a
# layer's ``index_bits`` (Deep Compression's relative-index width) applies.
RELATIVE_INDEX_FORMATS = ("eie", "scnn", "rle")
# Formats with a per-entry index field the ``--index-bits`` option sets, and its keyword.
INDEX_PARAMETER = {"eie": "index_bits", "scnn": "run_bits", "rle": "run_bits", "csr": "index_bits",
                   "csc": "index_bits", "compressed": "index_bits", "bsr": "index_bits"}
# Weight-sharing codebooks larger than this are not learned (2**16 entries = 16-bit codes).
MAX_HUFFMAN_VALUE_BITS = 16

STORAGE_PARTS = ("values_bits", "index_bits", "pointer_bits", "metadata_bits", "padding_bits")


@dataclass(frozen=True)
class StorageOptions:
    """What ``accel-sim storage`` asks for (None = the layer's or the format's default)."""

    format: str
    n_pes: int | None = None
    index_bits: int | None = None
    value_bits: int | None = None
    huffman: bool = False


def stored_matrix(layer: Layer, weights: np.ndarray | None = None) -> np.ndarray:
    """The layer's weights as stored: rows = outputs, columns = reduction (a view when possible)."""
    if weights is None:
        weights = layer_operands(layer).weights
    return weight_matrix(layer, weights).T


def stored_nonzeros(layer: Layer) -> tuple[tuple[int, int], np.ndarray, np.ndarray, np.ndarray]:
    """The shape of :func:`stored_matrix` and its non-zeros' columns, rows and values, sorted by (column,
    row) (``np.nonzero`` of its transpose), from the operands' ``weight_nonzeros``: no full-size matrix."""
    index, values = layer_operands(layer).weight_nonzeros
    stored = weight_shape(layer)
    if isinstance(layer, ConvLayer):   # stored layout (K, C/g R S) = the stored matrix: rows are filters
        shape = (stored[0], math.prod(stored[1:]))
        row, column = np.divmod(index, shape[1])
        order = np.argsort(column * shape[0] + row, kind="stable")
        return shape, column[order], row[order], values[order]
    shape = (stored[1], stored[0])
    column, row = np.divmod(index, shape[0])   # stored layout (k, n): the stored matrix's transpose
    return shape, column, row, values


def value_width(layer: Layer, options: StorageOptions) -> int:
    if options.value_bits is not None:
        return options.value_bits
    return layer.weight_bits if layer.weight_bits is not None else DEFAULT_VALUE_BITS


def format_parameters(layer: Layer, options: StorageOptions) -> dict[str, int | None]:
    """Keyword arguments of ``from_dense`` for this layer (raises InputError for misuse)."""
    name = options.format
    if name not in FORMATS:
        raise InputError.single("--format", name, f"unknown format; known: {', '.join(FORMATS)}")
    params: dict[str, int | None] = {}
    if options.n_pes is not None:
        if name != "eie":
            raise InputError.single("--pes", str(options.n_pes), f"only the eie format interleaves over PEs, not {name}")
        params["n_pes"] = options.n_pes
    index_bits = options.index_bits
    if index_bits is None and name in RELATIVE_INDEX_FORMATS:
        index_bits = layer.index_bits
    if index_bits is not None:
        if name not in INDEX_PARAMETER:
            raise InputError.single("--index-bits", str(index_bits),
                                    f"format {name} has no index width to set (formats with one: "
                                    f"{', '.join(INDEX_PARAMETER)})")
        params[INDEX_PARAMETER[name]] = index_bits
    if name == "eie":
        params["pointer_bits"] = None  # sized to fit: 16-bit EIE pointers overflow on VGG-16 fc6
    return params


def encode_layer(layer: Layer, options: StorageOptions, matrix: np.ndarray | None = None) -> SparseFormat:
    """The layer's stored matrix (or ``matrix``) in ``options.format``; InputError on bad parameters."""
    params = format_parameters(layer, options)
    if matrix is None:
        matrix = stored_matrix(layer)
    try:
        return FORMATS[options.format].from_dense(matrix, **params)
    except (TypeError, ValueError) as err:
        raise InputError.single(layer.name, f"format {options.format}", str(err)) from None


def value_stream(encoded: SparseFormat) -> np.ndarray:
    """Every stored value slot (true non-zeros and zero padding / filler slots), flattened."""
    if isinstance(encoded, EIEInterleavedCSC):
        return np.concatenate([pe.values for pe in encoded.pes])
    for attribute in ("data", "values", "blocks"):
        if hasattr(encoded, attribute):
            return np.asarray(getattr(encoded, attribute)).ravel()
    raise TypeError(f"no value array in {type(encoded).__name__}")


def index_stream(encoded: SparseFormat) -> tuple[np.ndarray, int] | None:
    """``(indices, width)`` of the formats that store one index field per entry or block, else None."""
    if isinstance(encoded, EIEInterleavedCSC):
        return np.concatenate([pe.rel_index for pe in encoded.pes]), encoded.index_bits
    if isinstance(encoded, RunLengthEncoded):  # SCNNZeroRun included
        return encoded.runs.ravel(), encoded.run_bits
    if isinstance(encoded, (CompressedSparse, BSR)):
        return encoded.indices.ravel(), encoded.index_bits
    return None


def huffman_sizes(encoded_codes: SparseFormat, value_bits: int, total_bits: int) -> dict[str, float]:
    """Huffman and entropy sizes of a format holding weight-sharing codes (see the module doc)."""
    values = value_stream(encoded_codes).astype(np.int64, copy=False)
    coded_values, entropy_values = huffman_coded_size(values)
    replaced = values.size * value_bits
    coded_index, entropy_index = 0, 0.0
    indices = index_stream(encoded_codes)
    if indices is not None:
        stream, width = indices
        coded_index, entropy_index = huffman_coded_size(stream.astype(np.int64, copy=False))
        replaced += stream.size * width
    if replaced > total_bits:
        raise AssertionError(f"Huffman streams ({replaced} bits) exceed the stored total ({total_bits})")
    kept = total_bits - replaced
    return {"huffman_values_bits": coded_values, "entropy_values_bits": entropy_values,
            "huffman_index_bits": coded_index, "entropy_index_bits": entropy_index,
            "huffman_bits": kept + coded_values + coded_index,
            "entropy_bits": kept + entropy_values + entropy_index}


def block_scaled_row(layer: Layer, options: StorageOptions, matrix: np.ndarray) -> dict:
    """A block-scaled format (OCP MX, NVFP4): every weight as an element, one scale per block of the
    reduction (the stored matrix's columns) as metadata (an NVFP4 tensor's FP32 scale too)."""
    element, block, _ = block_format(options.format)
    if matrix.shape[1] % block:
        raise InputError.single(layer.name, f"format {options.format}", f"its block of {block} must divide the "
                                f"reduction length (the stored matrix's columns), got {matrix.shape[1]}")
    breakdown = quantize_block_format(matrix, options.format, axis=1).storage()
    nnz = int(np.count_nonzero(matrix))
    return {"rows": matrix.shape[0], "columns": matrix.shape[1], "elements": matrix.size, "nnz": nnz,
            "density": nnz / matrix.size, "value_width_bits": element.bits, "index_width_bits": np.nan,
            "dense_bits": matrix.size * value_width(layer, options), "breakdown": breakdown}


def layer_storage_row(layer: Layer, options: StorageOptions, network: str = "") -> dict:
    """One table row: shape, non-zeros, widths, dense bits, compressed bits by part, ratio."""
    matrix = stored_matrix(layer)
    if options.format in BLOCK_FORMATS:
        row = {"network": network, "layer": layer.name, "format": options.format,
               **block_scaled_row(layer, options, matrix)}
        breakdown = row.pop("breakdown")
        row.update({part: getattr(breakdown, part) for part in STORAGE_PARTS})
        row["compressed_bits"] = breakdown.total_bits
        row["ratio"] = row["dense_bits"] / breakdown.total_bits
        row["bits_per_nonzero"] = breakdown.total_bits / row["nnz"] if row["nnz"] else np.nan
        return row
    encoded = encode_layer(layer, options, matrix)
    bits = value_width(layer, options)
    try:
        breakdown = encoded.storage(bits)
    except ValueError as err:
        raise InputError.single("--value-bits", str(bits), str(err)) from None
    index = index_stream(encoded)
    row = {"network": network, "layer": layer.name, "format": options.format,
           "rows": matrix.shape[0], "columns": matrix.shape[1], "elements": encoded.size, "nnz": encoded.nnz,
           "density": encoded.density, "value_width_bits": bits,
           "index_width_bits": index[1] if index is not None else np.nan,
           "dense_bits": encoded.size * bits}
    row.update({part: getattr(breakdown, part) for part in STORAGE_PARTS})
    row["compressed_bits"] = breakdown.total_bits
    row["ratio"] = row["dense_bits"] / breakdown.total_bits if breakdown.total_bits else np.inf
    row["bits_per_nonzero"] = breakdown.total_bits / encoded.nnz if encoded.nnz else np.nan
    if options.huffman:
        if bits > MAX_HUFFMAN_VALUE_BITS:
            raise InputError.single("--value-bits", str(bits), f"Huffman coding learns a 2**value_bits "
                                    f"codebook; at most {MAX_HUFFMAN_VALUE_BITS} bits")
        codes = quantize_kmeans(matrix, n_clusters=2**bits).values
        sizes = huffman_sizes(encode_layer(layer, options, codes), bits, breakdown.total_bits)
        row.update(sizes)
        row["huffman_ratio"] = row["dense_bits"] / sizes["huffman_bits"] if sizes["huffman_bits"] else np.inf
    return row


def storage_table(network: Network, options: StorageOptions) -> pd.DataFrame:
    """Per-layer storage of ``network``'s weights in one format, plus a ``total`` row."""
    if options.format not in FORMATS and options.format not in BLOCK_FORMATS:
        raise InputError.single("--format", options.format,
                                f"unknown format; known: {', '.join((*FORMATS, *BLOCK_FORMATS))}")
    if options.format in BLOCK_FORMATS and (options.huffman or options.index_bits is not None or options.n_pes):
        raise InputError.single("--format", options.format, "a block-scaled format takes no --huffman, "
                                "--index-bits or --pes")
    for name in ("n_pes", "index_bits", "value_bits"):
        value = getattr(options, name)
        if value is not None and value < 1:
            raise InputError.single(f"--{name.replace('_', '-').replace('n-pes', 'pes')}", str(value), "must be >= 1")
    frame = pd.DataFrame([layer_storage_row(layer, options, network.name)
                          for layer in single_layers(network.layers)])  # a batched GEMM: a row per instance
    return pd.concat([frame, _total_row(frame)], ignore_index=True)


def _total_row(frame: pd.DataFrame) -> pd.DataFrame:
    summed = [c for c in frame.columns if c.endswith("_bits") and not c.endswith("width_bits")] + ["elements", "nnz"]
    total = {c: frame[c].sum() for c in summed}
    total.update(network=frame["network"].iloc[0], layer="total", format=frame["format"].iloc[0])
    total["density"] = total["nnz"] / total["elements"]
    total["ratio"] = total["dense_bits"] / total["compressed_bits"]
    total["bits_per_nonzero"] = total["compressed_bits"] / total["nnz"] if total["nnz"] else np.nan
    if "huffman_bits" in frame:
        total["huffman_ratio"] = total["dense_bits"] / total["huffman_bits"]
    return pd.DataFrame([total], columns=frame.columns)
