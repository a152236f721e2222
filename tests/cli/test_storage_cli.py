"""`accel-sim storage`: the per-layer table printed and written as CSV; bad input exits 2 with one line."""
import numpy as np
import pandas as pd
import pytest

from accel_sim.cli.main import main
from accel_sim.foundations.workload.storage import StorageOptions, storage_table
from accel_sim.foundations.workload.loader import load_workload

TINY = """name: tiny
layers:
  - {name: c, type: conv, in_h: 6, in_w: 6, in_channels: 4, out_channels: 8, kernel: 3, weight_density: 0.3,
     weight_bits: 8, index_bits: 4}
  - {name: f, type: fc, in_features: 64, out_features: 16, weight_density: 0.1, weight_bits: 5, index_bits: 4}
"""


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return path


def test_table_is_printed_and_written(tiny, tmp_path, capsys):
    out = tmp_path / "t" / "storage.csv"
    assert main(["storage", "--workload", str(tiny), "--format", "eie", "--pes", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "tiny: weights in format eie" in printed and "total" in printed and f"wrote {out}" in printed
    frame = pd.read_csv(out)
    assert frame.layer.tolist() == ["c", "f", "total"]
    expected = storage_table(load_workload(tiny), StorageOptions("eie", n_pes=2))
    assert frame.compressed_bits.tolist() == expected.compressed_bits.tolist()
    assert frame.value_width_bits[:2].tolist() == [8, 5] and frame.index_width_bits[:2].tolist() == [4, 4]
    for part in ("values_bits", "index_bits", "pointer_bits", "metadata_bits", "padding_bits", "dense_bits", "ratio"):
        assert part in frame and part in printed


def test_options_reach_the_encoder(tiny, tmp_path):
    out = tmp_path / "s.csv"
    assert main(["storage", "--workload", str(tiny), "--format", "csr", "--index-bits", "12", "--value-bits", "4",
                 "--out", str(out)]) == 0
    frame = pd.read_csv(out)
    rows = frame.iloc[:2]
    assert (rows.value_width_bits == 4).all() and (rows.index_width_bits == 12).all()
    assert (rows.values_bits == rows.nnz * 4).all() and (rows.index_bits == rows.nnz * 12).all()


def test_huffman_columns_next_to_the_entropy_bound(tiny, tmp_path, capsys):
    out = tmp_path / "h.csv"
    assert main(["storage", "--workload", str(tiny), "--format", "eie", "--pes", "1", "--huffman",
                 "--out", str(out)]) == 0
    assert "huffman_bits" in capsys.readouterr().out
    frame = pd.read_csv(out)
    assert (frame.entropy_bits <= frame.huffman_bits).all() and (frame.huffman_bits <= frame.compressed_bits).all()
    assert np.isfinite(frame.huffman_ratio).all()


def test_a_shipped_workload_by_name(capsys):
    assert main(["storage", "--workload", "lenet_300_100", "--format", "bitmap"]) == 0
    assert "ip3" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "message"), [
    (["--format", "nope"], "unknown format"),
    (["--format", "csr", "--pes", "4"], "only the eie format"),
    (["--format", "eie", "--index-bits", "0"], "--index-bits: 0: must be >= 1"),
    (["--format", "eie", "--pes", "0"], "--pes: 0: must be >= 1"),
    (["--format", "coo", "--value-bits", "0"], "--value-bits: 0: must be >= 1"),
    (["--format", "csr", "--index-bits", "2"], "index_bits=2 cannot hold"),
    (["--format", "nm"], "violates 2:4"),
    (["--format", "csr", "--out", "table.txt"], "expected a .csv file name"),
])
def test_bad_input_exits_2_with_one_line(tiny, args, message, capsys):
    assert main(["storage", "--workload", str(tiny), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("accel-sim: error:")


def test_missing_workload_exits_2(capsys):
    assert main(["storage", "--workload", "no_such_network", "--format", "csr"]) == 2
    assert "Traceback" not in capsys.readouterr().err
