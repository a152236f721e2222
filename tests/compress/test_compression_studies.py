"""The storage-formats and deep-compression studies, with reduced parameters."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from accel_sim.foundations.workload.storage import stored_matrix
from accel_sim.studies.deep_compression import FLOAT_BITS, PUBLISHED, compression_table, deep_compression
from accel_sim.studies.registry import Study, all_studies, write_study
from accel_sim.studies.storage_formats import break_even_density, storage_formats, storage_sweep
from accel_sim.foundations.workload.loader import load_workload

SMALL_LAYER = ("lenet5", "ip1")  # 500 x 800


@pytest.fixture(scope="module")
def sweep() -> pd.DataFrame:
    return storage_sweep(SMALL_LAYER, densities=(0.05, 0.5, 1.0), value_bits=(4, 8, 16), relative_index_bits=(4,))


def test_both_studies_are_registered():
    studies = all_studies()
    assert "storage-formats" in studies and "deep-compression" in studies


def test_sweep_covers_every_format_density_and_width(sweep):
    assert set(sweep.density) == {0.05, 0.5, 1.0} and set(sweep.value_bits) == {4, 8, 16}
    assert {"dense", "csr", "csc", "eie (4-bit index)", "scnn (4-bit index)", "rle (4-bit index)", "csb", "bsr",
            "coo", "bitmap"} == set(sweep.format)
    parts = sweep[["values_bits", "index_bits", "pointer_bits", "metadata_bits", "padding_bits"]].sum(axis=1)
    assert (parts == sweep.total_bits).all()
    assert (sweep.values_bits == sweep.nnz * sweep.value_bits).all()
    assert np.allclose(sweep.bits_per_element, sweep.total_bits / sweep.elements)


def test_dense_and_bitmap_follow_their_formulas(sweep):
    dense = sweep[sweep.format == "dense"]
    assert (dense.bits_per_element == dense.value_bits).all() and (dense.ratio_vs_dense == 1).all()
    bitmap = sweep[sweep.format == "bitmap"]
    expected = 1 + bitmap.nnz * bitmap.value_bits / bitmap.elements
    assert np.allclose(bitmap.bits_per_element, expected)


def test_csr_independent_count_and_the_seed_claim(sweep):
    """8-bit values at 50 % density gain nothing with CSR: its 10-bit column indices cost more."""
    row = sweep[(sweep.format == "csr") & (sweep.value_bits == 8) & (sweep.density == 0.5)].iloc[0]
    rows, cols = 500, 800
    expected = row.nnz * (8 + math.ceil(math.log2(cols))) + (rows + 1) * math.ceil(math.log2(row.nnz + 1))
    assert row.total_bits == expected and row.ratio_vs_dense < 1
    assert break_even_density(sweep, "csr", 8) == 0.05
    assert break_even_density(sweep, "bitmap", 16) == 0.5


def test_smallest_is_one_per_point_and_dense_wins_at_full_density(sweep):
    for _, part in sweep.groupby(["density", "value_bits"]):
        assert part.smallest.any() and part[part.smallest].total_bits.nunique() == 1
    full = sweep[(sweep.density == 1.0) & sweep.smallest]
    assert set(full.format) == {"dense"}


def test_storage_formats_study_writes_its_files(tmp_path):
    small = Study("storage-formats", "t", lambda: storage_formats(SMALL_LAYER, densities=(0.1, 0.5), value_bits=(8,),
                                                                   relative_index_bits=(4,)))
    output = write_study(small, tmp_path)
    assert isinstance(output.figure, Figure)
    readme = (tmp_path / "README.md").read_text()
    assert "CSR, 8-bit values, 50 % density" in readme and "Smallest format" in readme
    assert len(pd.read_csv(tmp_path / "results.csv")) == 2 * 10


@pytest.fixture(scope="module")
def lenets() -> pd.DataFrame:
    return compression_table(("lenet_300_100", "lenet5"))


def test_deep_compression_has_the_issue_columns_and_totals(lenets):
    for column in ("network", "layer", "dense_bits", "pruned_quantized_bits", "huffman_bits"):
        assert column in lenets
    for name, part in lenets.groupby("network"):
        layers, total = part[part.layer != "total"], part[part.layer == "total"].iloc[0]
        for column in ("dense_bits", "pruned_bits", "pruned_quantized_bits", "huffman_bits", "nnz"):
            assert total[column] == layers[column].sum()
        assert len(layers) == len(load_workload(name).layers)


def test_deep_compression_layer_bits_equal_an_independent_count(lenets):
    layer = load_workload("lenet_300_100").layers[0]
    row = lenets[(lenets.network == "lenet_300_100") & (lenets.layer == layer.name)].iloc[0]
    matrix = stored_matrix(layer)
    assert row.dense_bits == matrix.size * FLOAT_BITS
    entries = row.nnz + row.filler_entries
    pointer_width = int(entries).bit_length()
    expected = entries * (layer.weight_bits + layer.index_bits) + (matrix.shape[1] + 1) * pointer_width \
        + 2**layer.weight_bits * FLOAT_BITS
    assert row.pruned_quantized_bits == expected


def test_each_stage_shrinks_and_huffman_sits_above_entropy(lenets):
    layers = lenets[lenets.layer != "total"]
    assert (layers.entropy_bits <= layers.huffman_bits).all()
    assert (layers.huffman_bits < layers.pruned_quantized_bits).all()
    big = layers[layers.elements > 10_000]  # the codebook dominates only the tiny conv1 of LeNet-5
    assert (big.pruned_quantized_bits < big.pruned_bits).all() and (big.pruned_bits < big.dense_bits).all()
    totals = lenets[lenets.layer == "total"]
    assert ((totals.huffman_ratio > 20) & (totals.huffman_ratio < 60)).all()


def test_deep_compression_study_compares_with_han_et_al(tmp_path):
    output = write_study(Study("deep-compression", "t", lambda: deep_compression(("lenet_300_100",))), tmp_path)
    quantities = {c.quantity: c for c in output.comparisons}
    huffman = quantities["lenet_300_100: + Huffman compression ratio"]
    assert huffman.published == 40.0 and huffman.unit == "x"
    total = output.results[output.results.layer == "total"].iloc[0]
    assert huffman.simulated == total.huffman_ratio
    assert quantities["lenet_300_100: pruning + quantization compression ratio"].published == 100 / 3.1
    assert "storage saved by Huffman" in " ".join(quantities)
    readme = (tmp_path / "README.md").read_text()
    assert "Why the gaps" in readme and "published 40x" in readme
    frame = pd.read_csv(tmp_path / "results.csv")
    assert list(frame.columns[:2]) == ["network", "layer"] and (tmp_path / "figure.png").exists()
    assert set(PUBLISHED) == {"lenet_300_100", "lenet5", "alexnet", "vgg16"}


def test_studies_are_deterministic():
    a = compression_table(("lenet_300_100",))
    b = compression_table(("lenet_300_100",))
    assert a.equals(b)


@pytest.mark.parametrize("n_pes", [1, 4])
def test_weight_sharing_on_the_pruned_format_equals_encoding_the_code_matrix(n_pes):
    from accel_sim.foundations.compress.formats.eie import EIEInterleavedCSC
    from accel_sim.foundations.compress.quantization.kmeans import quantize_kmeans
    from accel_sim.studies.deep_compression import _weight_shared
    rng = np.random.default_rng(5)
    matrix = rng.standard_normal((40, 70)).astype(np.float32)
    matrix[rng.random(matrix.shape) < 0.85] = 0
    matrix[3, :5] = matrix[0, 0]                      # repeated values share a code
    matrix = matrix.T.copy().T                        # the stored layout: a transposed view
    pruned = EIEInterleavedCSC.from_dense(matrix, n_pes=n_pes, index_bits=3, pointer_bits=None)
    shared = _weight_shared(pruned, 4)
    expected = EIEInterleavedCSC.from_dense(quantize_kmeans(matrix, n_clusters=16).values, n_pes=n_pes,
                                            index_bits=3, pointer_bits=None)
    assert shared.pointer_bits == expected.pointer_bits and shared.storage(4) == expected.storage(4)
    for got, want in zip(shared.pes, expected.pes, strict=True):
        for name in ("values", "rel_index", "col_ptr"):
            a, b = getattr(got, name), getattr(want, name)
            assert a.dtype == b.dtype and np.array_equal(a, b), name
