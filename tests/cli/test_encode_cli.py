"""`accel-sim encode` reproduces the papers' worked examples and refuses bad input."""
import json

import numpy as np

from accel_sim.cli.main import main

EIE_COLUMN = [[0], [0], [1], [2]] + [[0]] * 18 + [[3]]
SCNN_FILTERS = [0, 23, 0, 0, 0, 0, 18, 0, 42, 77, 0, 0, 0, 24, 0, 0, 0, 8]  # k=0 then k=1, row-major 3x3


def encode(capsys, *args):
    assert main(["encode", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_eie_single_column_example(capsys):
    out = encode(capsys, "--format", "eie", "--pes", "1", json.dumps(EIE_COLUMN))
    (pe,) = out["pes"]
    assert pe["values"] == [1, 2, 0, 3] and pe["rel_index"] == [2, 0, 15, 2]


def test_eie_pe0_slice_from_npy(capsys, tmp_path):
    rng = np.random.default_rng(0)
    w = np.zeros((16, 8), dtype=np.int64)
    pe0 = {0: [0, 2, 4, 5, 6], 4: [1, 4], 8: [0, 7], 12: [0, 2, 5, 7]}  # the paper's Fig. 2 PE0 pattern
    for row, cols in pe0.items():
        w[row, cols] = rng.integers(1, 16, len(cols))
    np.save(tmp_path / "w.npy", w)
    out = encode(capsys, "--format", "eie", "--pes", "4", str(tmp_path / "w.npy"))
    assert out["pes"][0]["rel_index"] == [0, 1, 0, 1, 0, 2, 0, 0, 0, 2, 0, 2, 0]
    assert out["pes"][0]["col_ptr"] == [0, 3, 4, 6, 6, 8, 10, 11, 13]


def test_scnn_two_filter_example(capsys):
    out = encode(capsys, "--format", "scnn", json.dumps(SCNN_FILTERS))
    assert out["values"] == [23, 18, 42, 77, 24, 8]
    assert [out["nnz"]] + out["runs"] == [6, 1, 4, 1, 0, 3, 3]


def test_bad_matrix_and_parameters_exit_2(capsys):
    assert main(["encode", "--format", "csr", "[[1, [2]]]"]) == 2
    assert main(["encode", "--format", "eie", "--index-bits", "0", "[[1]]"]) == 2
    assert main(["encode", "--format", "zip", "[[1]]"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and "index_bits" in err[1] and "unknown format" in err[2]
