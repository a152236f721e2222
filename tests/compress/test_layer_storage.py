"""Per-layer storage tables (``accel_sim.foundations.workload.storage``): bits equal independent
counts, widths come from the options or the workload, Huffman sizes sit above the entropy
bound, and misuse gives InputErrors."""
from __future__ import annotations

import math

import numpy as np
import pytest

from accel_sim.foundations.compress.formats import FORMATS
from accel_sim.foundations.compress.huffman import huffman_coded_size, huffman_encode
from accel_sim.foundations.workload.storage import (
    DEFAULT_VALUE_BITS,
    StorageOptions,
    encode_layer,
    storage_table,
    stored_matrix,
)
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, Network, NMSparsity, OperandSource
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.foundations.workload.operands import layer_operands

FC = GemmLayer("fc", m=1, k=96, n=40, weight_density=0.1, weight_bits=5, index_bits=4)
CONV = ConvLayer("conv", in_h=8, in_w=8, in_channels=8, out_channels=12, kernel_h=3, kernel_w=3, groups=2,
                 weight_density=0.4, weight_bits=8, index_bits=5)
NET = Network("tiny", (CONV, FC))


def test_stored_matrix_is_outputs_by_reduction():
    assert stored_matrix(FC).shape == (40, 96)
    assert np.array_equal(stored_matrix(FC), layer_operands(FC).weights.T)
    assert stored_matrix(CONV).shape == (12, 4 * 9)
    assert np.array_equal(stored_matrix(CONV), layer_operands(CONV).weights.reshape(12, -1))


def test_csr_bits_equal_an_independent_count():
    table = storage_table(NET, StorageOptions("csr", value_bits=8))
    for layer, row in zip(NET.layers, table.itertuples()):
        matrix = stored_matrix(layer)
        nnz = int(np.count_nonzero(matrix))
        rows, cols = matrix.shape
        assert row.nnz == nnz and row.dense_bits == matrix.size * 8
        assert row.values_bits == nnz * 8
        assert row.index_bits == nnz * math.ceil(math.log2(cols))
        assert row.pointer_bits == (rows + 1) * math.ceil(math.log2(nnz + 1))
        assert row.compressed_bits == row.values_bits + row.index_bits + row.pointer_bits
        assert row.ratio == pytest.approx(row.dense_bits / row.compressed_bits)


def eie_entries(matrix, n_pes, index_bits):
    """Per-PE entries (padding included) counted the slow way, column by column."""
    max_run = 2**index_bits - 1
    entries = []
    for pe in range(n_pes):
        count = 0
        rows = matrix[pe::n_pes]
        for column in rows.T:
            zeros = 0
            for value in column:
                if value == 0:
                    zeros += 1
                    continue
                count += zeros // (max_run + 1) + 1
                zeros = 0
        entries.append(count)
    return entries


def test_eie_uses_the_layer_index_bits_and_counts_padding_independently():
    table = storage_table(NET, StorageOptions("eie", n_pes=4))
    for layer, row in zip(NET.layers, table.itertuples()):
        matrix = stored_matrix(layer)
        entries = eie_entries(matrix, 4, layer.index_bits)
        nnz = int(np.count_nonzero(matrix))
        padding = sum(entries) - nnz
        assert row.index_width_bits == layer.index_bits and row.value_width_bits == layer.weight_bits
        assert row.padding_bits == padding * (layer.weight_bits + layer.index_bits)
        assert row.index_bits == nnz * layer.index_bits
        pointer_width = max(entries).bit_length()
        assert row.pointer_bits == 4 * (matrix.shape[1] + 1) * pointer_width
    override = storage_table(NET, StorageOptions("eie", n_pes=4, index_bits=2, value_bits=16))
    assert (override.index_width_bits[:2] == 2).all() and (override.value_width_bits[:2] == 16).all()
    fc_padding = sum(eie_entries(stored_matrix(FC), 4, 2)) - np.count_nonzero(stored_matrix(FC))
    assert override.padding_bits[1] == fc_padding * (16 + 2) > table.padding_bits[1]  # shorter runs: more fillers


def test_default_value_bits_when_the_workload_has_none():
    bare = GemmLayer("bare", m=1, k=32, n=16, weight_density=0.5)
    table = storage_table(Network("n", (bare,)), StorageOptions("coo"))
    assert table.value_width_bits[0] == DEFAULT_VALUE_BITS


@pytest.mark.parametrize("name", sorted(set(FORMATS) - {"nm"}))
def test_every_format_round_trips_the_layer_and_totals_add_up(name):
    options = StorageOptions(name, value_bits=8)
    table = storage_table(NET, options)
    for layer in NET.layers:
        encoded = encode_layer(layer, options)
        assert np.array_equal(encoded.to_dense(), stored_matrix(layer))
    layers, total = table.iloc[:-1], table.iloc[-1]
    assert total.layer == "total"
    for column in ("dense_bits", "values_bits", "index_bits", "pointer_bits", "metadata_bits", "padding_bits",
                   "compressed_bits", "nnz", "elements"):
        assert total[column] == layers[column].sum()
    parts = layers[["values_bits", "index_bits", "pointer_bits", "metadata_bits", "padding_bits"]].sum(axis=1)
    assert (parts == layers.compressed_bits).all()
    assert (layers.compressed_bits >= layers.nnz * 8).all()  # bytes moved >= the values themselves


def test_nm_format_on_an_nm_layer():
    layer = GemmLayer("nm", m=1, k=64, n=16, weight_sparsity=NMSparsity(2, 4),
                      operands=OperandSource(weight_pattern="nm"))
    row = storage_table(Network("n", (layer,)), StorageOptions("nm", value_bits=8)).iloc[0]
    assert row.nnz == 64 * 16 // 2 and row.metadata_bits == row.nnz * 2 and row.padding_bits == 0
    with pytest.raises(InputError, match="violates 2:4"):
        storage_table(NET, StorageOptions("nm"))


def test_huffman_sizes_sit_between_entropy_and_fixed_width():
    table = storage_table(NET, StorageOptions("eie", n_pes=2, huffman=True))
    for row in table.iloc[:-1].itertuples():
        assert row.entropy_values_bits <= row.huffman_values_bits
        assert row.entropy_index_bits <= row.huffman_index_bits
        assert row.entropy_bits <= row.huffman_bits <= row.compressed_bits
        assert row.huffman_ratio == pytest.approx(row.dense_bits / row.huffman_bits)
    total = table.iloc[-1]
    assert total.huffman_bits == table.huffman_bits[:-1].sum()


def test_huffman_of_a_format_without_an_index_stream_codes_values_only():
    row = storage_table(Network("n", (FC,)), StorageOptions("bitmap", huffman=True)).iloc[0]
    assert row.huffman_index_bits == 0
    assert row.huffman_bits == row.compressed_bits - row.values_bits + row.huffman_values_bits


def test_coded_size_matches_the_real_encoder():
    rng = np.random.default_rng(3)
    stream = rng.geometric(0.3, size=5000).astype(np.int64)
    coded = huffman_encode(stream)
    assert huffman_coded_size(stream) == (coded.coded_bits, pytest.approx(coded.entropy_bits))
    assert huffman_coded_size(np.zeros(0, dtype=np.int64)) == (0, 0.0)
    assert huffman_coded_size(np.full(7, 3)) == (7, 0.0)


def test_same_workload_same_table():
    a = storage_table(NET, StorageOptions("csc", huffman=True, value_bits=6))
    b = storage_table(NET, StorageOptions("csc", huffman=True, value_bits=6))
    assert a.equals(b)


def test_shipped_deep_compression_widths_reach_the_table():
    table = storage_table(load_workload("lenet_300_100"), StorageOptions("eie", n_pes=1))
    assert table.value_width_bits[:3].tolist() == [6, 6, 6] and table.index_width_bits[:3].tolist() == [5, 5, 5]


@pytest.mark.parametrize(("options", "message"), [
    (StorageOptions("zip"), "unknown format"),
    (StorageOptions("csr", n_pes=4), "only the eie format interleaves"),
    (StorageOptions("bitmap", index_bits=4), "format bitmap has no index width"),
    (StorageOptions("eie", index_bits=0), "must be >= 1"),
    (StorageOptions("csr", index_bits=3), "index_bits=3 cannot hold"),
    (StorageOptions("csr", value_bits=0), "must be >= 1"),
    (StorageOptions("csr", value_bits=20, huffman=True), "at most 16 bits"),
])
def test_bad_options_are_input_errors(options, message):
    with pytest.raises(InputError, match=message) as info:
        storage_table(NET, options)
    assert len(info.value.problems) == 1
