"""SCALE-Sim ``.cfg`` files, read as they are: the ``[sparsity]`` section (SCALE-Sim 3.0.0)."""
from pathlib import Path

import pytest

from accel_sim import InputError, load_arch
from accel_sim.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "data"
ROW_BS4 = DATA / "scalesim" / "calc_ws_32x32_row_bs4" / "calc_ws_32x32_row_bs4.cfg"
REFUSED = DATA / "scalesim_refused" / "calc_ws_12x12_row_bs8"


def variant(tmp_path: Path, old: str, new: str, source: Path = ROW_BS4) -> Path:
    text = source.read_text()
    assert old in text
    path = tmp_path / "variant.cfg"
    path.write_text(text.replace(old, new))
    return path


def test_row_wise_keys_map_onto_the_systolic_spec(tmp_path):
    spec = load_arch(ROW_BS4).systolic
    assert (spec.nm_sparsity, spec.sparse_mapping, spec.row_block_size, spec.row_seed) == (True, "row_wise", 4, 40)
    assert spec.row_wise
    seeded = load_arch(variant(tmp_path, "RandomNumberGeneratorSeed : 40", "RandomNumberGeneratorSeed : 7")).systolic
    assert seeded.row_seed == 7


def test_block_size_is_not_read_without_optimized_mapping(tmp_path):
    """SCALE-Sim reads BlockSize only under OptimizedMapping true: any value passes otherwise."""
    path = variant(tmp_path, "OptimizedMapping : true\nBlockSize : 4", "OptimizedMapping : false\nBlockSize : abc")
    spec = load_arch(path).systolic
    assert spec.nm_sparsity and spec.sparse_mapping == "layer_wise" and not spec.row_wise


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("BlockSize : 4", "BlockSize : 3", "must be even"),
    ("BlockSize : 4", "BlockSize : 64", "does not divide the array's 32 rows"),
    ("BlockSize : 4", "BlockSize : 4.0", "sparsity.BlockSize: expected int"),
    ("SparseRep : ellpack_block", "SparseRep : ELLPACK_BLOCK", "sparsity.SparseRep"),
    ("RandomNumberGeneratorSeed : 40\n", "", "RandomNumberGeneratorSeed: required SCALE-Sim key is missing"),
])
def test_bad_sparsity_keys_are_refused(tmp_path, old, new, expected):
    with pytest.raises(InputError, match=expected):
        load_arch(variant(tmp_path, old, new))


def test_block_size_not_dividing_the_array_is_one_line_exit_2(capsys):
    """SCALE-Sim runs BlockSize 8 on 12 rows (8 divides 24); issue 15 wants it refused."""
    cfg, topology = REFUSED / "calc_ws_12x12_row_bs8.cfg", REFUSED / "conv_edge.csv"
    assert main(["run", "--arch", str(cfg), "--workload", str(topology), "--no-figure"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    assert "row_block_size (SCALE-Sim BlockSize) 8 does not divide the array's 12 rows" in lines[0]
