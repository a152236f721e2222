"""The teaching examples of the papers, and small hand-checked encodings."""
from __future__ import annotations

import numpy as np
import pytest

from accel_sim.foundations.compress import BSR, COO, CSB, CSC, CSR, Bitmap, EIEInterleavedCSC, NOfM, RunLengthEncoded, SCNNZeroRun

# --- EIE (Han et al., ISCA 2016), Figs. 2 and 3 -----------------------------------------

# PE0's slice of the 16 x 8 matrix: local row -> (global row, non-zero columns).
EIE_PE0_PATTERN = {0: (0, [0, 2, 4, 5, 6]), 1: (4, [1, 4]), 2: (8, [0, 7]), 3: (12, [0, 2, 5, 7])}


def w(row: int, col: int) -> int:
    """A distinct non-zero value standing for W[row, col]."""
    return 100 * row + col + 1


def eie_figure_matrix() -> np.ndarray:
    """16 x 8 matrix with PE0's rows as in Fig. 2 and random non-zeros on the other PEs."""
    rng = np.random.default_rng(2016)
    matrix = np.where(rng.random((16, 8)) < 0.4, rng.integers(1, 50, (16, 8)), 0)
    for global_row, columns in EIE_PE0_PATTERN.values():
        matrix[global_row] = 0
        matrix[global_row, columns] = [w(global_row, c) for c in columns]
    return matrix


def test_eie_figure_2_pe0_arrays() -> None:
    fmt = EIEInterleavedCSC.from_dense(eie_figure_matrix(), n_pes=4)
    pe0 = fmt.pes[0]
    virtual_weights = [w(0, 0), w(8, 0), w(12, 0), w(4, 1), w(0, 2), w(12, 2), w(0, 4), w(4, 4),
                       w(0, 5), w(12, 5), w(0, 6), w(8, 7), w(12, 7)]  # fmt: skip
    assert pe0.values.tolist() == virtual_weights
    assert pe0.rel_index.tolist() == [0, 1, 0, 1, 0, 2, 0, 0, 0, 2, 0, 2, 0]
    assert pe0.col_ptr.tolist() == [0, 3, 4, 6, 6, 8, 10, 11, 13]
    fmt.check()
    assert np.array_equal(fmt.to_dense(), eie_figure_matrix())


def test_eie_interleaves_rows_over_pes() -> None:
    matrix = eie_figure_matrix()
    fmt = EIEInterleavedCSC.from_dense(matrix, n_pes=4)
    for pe in range(4):
        assert fmt.local_rows(pe) == 4
        assert fmt.pes[pe].col_ptr[-1] == np.count_nonzero(matrix[pe::4])  # no gap exceeds 15 here
    assert fmt.entries_per_column()[0].tolist() == [3, 1, 2, 0, 2, 2, 1, 2]


def test_eie_figure_3_padding_entry() -> None:
    column = np.array([0, 0, 1, 2] + [0] * 18 + [3]).reshape(-1, 1)
    fmt = EIEInterleavedCSC.from_dense(column, n_pes=1)
    assert fmt.pes[0].values.tolist() == [1, 2, 0, 3]
    assert fmt.pes[0].rel_index.tolist() == [2, 0, 15, 2]
    assert fmt.n_padding == 1 and fmt.nnz == 3
    storage = fmt.storage(value_bits=4)
    assert storage.as_dict() == {
        "values_bits": 3 * 4,
        "index_bits": 3 * 4,
        "pointer_bits": 1 * 2 * 16,
        "metadata_bits": 0,
        "padding_bits": 4 + 4,
        "total_bits": 12 + 12 + 32 + 8,
    }


@pytest.mark.parametrize(("gap", "fillers", "last_run"), [(15, 0, 15), (16, 1, 0), (31, 1, 15), (32, 2, 0), (40, 2, 8)])
def test_eie_gap_arithmetic(gap: int, fillers: int, last_run: int) -> None:
    column = np.array([0] * gap + [7]).reshape(-1, 1)
    pe = EIEInterleavedCSC.from_dense(column, n_pes=1).pes[0]
    assert pe.rel_index.tolist() == [15] * fillers + [last_run]
    assert pe.values.tolist() == [0] * fillers + [7]


def test_eie_padding_falls_as_pes_grow() -> None:
    """More PEs give each PE fewer rows per column slice, so long gaps and fillers vanish."""
    column = np.zeros((64, 1), dtype=np.int32)
    column[[0, 40, 63]] = 1
    padding = [EIEInterleavedCSC.from_dense(column, n_pes=n).n_padding for n in (1, 2, 4)]
    assert padding == [2 + 1, 1 + 1, 0]  # gaps 39, 22 | 19 (PE0), 31 (PE1) | 9, 15


# --- SCNN (Parashar et al., ISCA 2017), Fig. 7 ------------------------------------------

SCNN_FILTERS = np.array([
    [[0, 23, 0], [0, 0, 0], [18, 0, 42]],
    [[77, 0, 0], [0, 24, 0], [0, 0, 8]],
])  # fmt: skip  (K = 2 filters of 3 x 3, row-major)


def test_scnn_figure_7_encoding() -> None:
    fmt = SCNNZeroRun.from_dense(SCNN_FILTERS)
    assert fmt.values.tolist() == [23, 18, 42, 77, 24, 8]
    assert fmt.index_vector().tolist() == [6, 1, 4, 1, 0, 3, 3]
    fmt.check()
    assert np.array_equal(fmt.to_dense(), SCNN_FILTERS)
    # 6 values of 16 bits with a 4-bit index each, and a count field for up to 18 entries.
    assert fmt.storage(16).as_dict()["total_bits"] == 6 * (16 + 4) + 5


def test_scnn_placeholder_for_long_runs() -> None:
    block = np.zeros(40, dtype=np.int32)
    block[[3, 35]] = [5, 6]
    fmt = SCNNZeroRun.from_dense(block)
    assert fmt.values.tolist() == [5, 0, 6]
    assert fmt.index_vector().tolist() == [3, 3, 15, 15]
    assert fmt.n_placeholders == 1


def test_rle_uses_eyeriss_five_bit_runs_without_count() -> None:
    fmt = RunLengthEncoded.from_dense(np.array([0] * 31 + [1, 0, 2]))
    assert fmt.runs.tolist() == [31, 1]
    assert fmt.index_vector().tolist() == [31, 1]
    assert fmt.storage(16).metadata_bits == 0


# --- CSR / CSC ------------------------------------------------------------------------

SMALL = np.array([
    [0, 5, 0, 0],
    [0, 0, 0, 0],
    [7, 0, 0, 9],
])  # fmt: skip


def test_csr_and_csc_arrays() -> None:
    csr = CSR.from_dense(SMALL)
    assert (csr.indptr.tolist(), csr.indices.tolist(), csr.data.tolist()) == ([0, 1, 1, 3], [1, 0, 3], [5, 7, 9])
    csc = CSC.from_dense(SMALL)
    assert (csc.indptr.tolist(), csc.indices.tolist(), csc.data.tolist()) == ([0, 1, 2, 2, 3], [2, 0, 2], [7, 5, 9])
    assert (csr.major_axis, csc.major_axis) == (0, 1)


def test_csr_default_bit_widths_and_storage() -> None:
    csr = CSR.from_dense(SMALL)
    assert csr.index_bits == 2  # ceil(log2(4 columns))
    assert csr.pointer_bits == 2  # ceil(log2(3 + 1))
    assert csr.storage(8).as_dict() == {
        "values_bits": 24, "index_bits": 6, "pointer_bits": 8, "metadata_bits": 0, "padding_bits": 0, "total_bits": 38
    }  # fmt: skip


def test_csr_stores_deep_compression_2a_plus_n_plus_1_numbers() -> None:
    csr = CSR.from_dense(SMALL)
    a, n = np.count_nonzero(SMALL), SMALL.shape[0]
    assert csr.data.size + csr.indices.size + csr.indptr.size == 2 * a + n + 1


def test_csr_with_explicit_widths() -> None:
    csr = CSR.from_dense(SMALL, index_bits=8, pointer_bits=16)
    assert csr.storage(8).index_bits == 3 * 8 and csr.storage(8).pointer_bits == 4 * 16


# --- CSB, BSR, COO, bitmap, N:M -------------------------------------------------------


def test_csb_in_block_indices() -> None:
    matrix = np.zeros((4, 4), dtype=np.int32)
    matrix[0, 3], matrix[1, 0], matrix[3, 2], matrix[2, 3] = 1, 2, 3, 4
    csb = CSB.from_dense(matrix, beta=2)
    assert csb.block_ptr.tolist() == [0, 1, 2, 2, 4]  # blocks (0,0), (0,1), (1,0), (1,1)
    assert csb.values.tolist() == [2, 1, 4, 3]
    assert csb.row_index.tolist() == [1, 0, 0, 1]
    assert csb.col_index.tolist() == [0, 1, 1, 0]
    assert csb.index_bits == 1
    assert csb.storage(8).index_bits == 4 * 2 * 1


def test_csb_default_beta_is_a_power_of_two_near_sqrt_n() -> None:
    assert CSB.from_dense(np.zeros((4096, 100))).beta == 64
    assert CSB.from_dense(np.zeros((100, 9))).beta == 16


def test_bsr_blocks_and_edge_padding() -> None:
    matrix = np.zeros((3, 5), dtype=np.int32)
    matrix[0, 0], matrix[2, 4] = 1, 2
    bsr = BSR.from_dense(matrix, block_size=2)
    assert bsr.block_grid == (2, 3)
    assert bsr.indptr.tolist() == [0, 1, 2] and bsr.indices.tolist() == [0, 2]
    assert bsr.blocks.tolist() == [[[1, 0], [0, 0]], [[2, 0], [0, 0]]]
    storage = bsr.storage(8)
    assert storage.values_bits == 16 and storage.padding_bits == 6 * 8


def test_coo_and_bitmap() -> None:
    coo = COO.from_dense(SMALL)
    assert coo.coords.tolist() == [[0, 1], [2, 0], [2, 3]]
    assert coo.storage(8).index_bits == 3 * (2 + 2)
    bitmap = Bitmap.from_dense(SMALL)
    assert bitmap.values.tolist() == [5, 7, 9]
    assert bitmap.storage(8).index_bits == 12


def test_nm_two_of_four_with_metadata() -> None:
    row = np.array([[0, 3, 0, 4, 0, 0, 0, 5]])
    nm = NOfM.from_dense(row, n=2, m=4)
    assert nm.values.tolist() == [[[3, 4], [0, 5]]]
    assert nm.positions.tolist() == [[[1, 3], [0, 3]]]
    storage = nm.storage(16)
    assert storage.metadata_bits == 4 * 2  # 2 bits per kept slot
    assert storage.values_bits == 3 * 16 and storage.padding_bits == 16


def test_nm_pads_a_short_last_group() -> None:
    x = np.array([[1, 0, 0, 0, 2, 3]])  # groups [1 0 0 0] and [2 3 | pad pad]
    nm = NOfM.from_dense(x, n=2, m=4)
    assert nm.positions.tolist() == [[[0, 1], [0, 1]]]
    assert np.array_equal(nm.to_dense(), x)
