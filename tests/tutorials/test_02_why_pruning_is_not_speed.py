"""Tutorial 2 runs top to bottom and its key results hold (index overhead, the ladder)."""
import pytest

from tests.tutorials.runner import run_tutorial


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    return run_tutorial(tmp_path_factory, "02_why_pruning_is_not_speed.py")


def test_figures_are_written(tutorial):
    _, out = tutorial
    for name in ("02_index_overhead.png", "02_sparsity_ladder.png"):
        assert (out / name).stat().st_size > 10_000, name


def test_index_overhead(tutorial):
    g, _ = tutorial
    # 8-bit values + 11-bit CSR indices: break-even near 8 / 19 of the positions kept
    assert 0.35 < g["CSR_BREAK_EVEN_8BIT"] < 0.45
    be = g["BREAK_EVEN"]
    assert be[("CSR", 4)] < be[("CSR", 8)] < be[("CSR", 16)]  # wider values hide the index better
    assert be[("bitmap", 8)] > be[("CSR", 8)]                  # one bit per position beats 11 per value early
    assert g["NM_RATIO_8BIT"] == pytest.approx(20 / 32)


def test_ladder_results(tutorial):
    g, _ = tutorial
    ladder = g["ladder"]
    for _, part in ladder.groupby(["pattern", "density"]):
        cycles = part.set_index("support").cycles
        assert cycles["none"] == cycles["memory"] == cycles["gating"]
        assert cycles["reassignment"] <= cycles["skipping"]
    assert 4.0 < g["SKIP_SPEEDUP_02"] < 5.0
    assert g["GATING_ENERGY_SAVING_02"] > 0.05
    assert g["MEMORY_DRAM_RATIO_05"] > 1.0          # CSR at 50 % density moves more bytes than dense
    assert g["FILTER_SKIP_SPEEDUP_01"] < 1.5 < 3.0 < g["FILTER_REASSIGN_SPEEDUP_01"]
