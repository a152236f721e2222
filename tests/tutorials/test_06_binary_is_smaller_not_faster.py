"""Tutorial 6 runs top to bottom and its key results hold (size ratios, CPU and array speed-ups)."""
import pytest

from tests.tutorials.runner import run_tutorial


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    return run_tutorial(tmp_path_factory, "06_binary_is_smaller_not_faster.py")


def test_figure_is_written(tutorial):
    _, out = tutorial
    assert (out / "06_size_vs_speed.png").stat().st_size > 10_000


def test_smaller_nearly_32x_but_capped_by_full_precision_layers(tutorial):
    g, _ = tutorial
    ratio = g["SIZE_RATIO"]
    assert 29 < ratio["binary, first fp32"] < 32
    assert 10 < ratio["binary, first + last fp32"] < 16


def test_not_32x_faster(tutorial):
    g, _ = tutorial
    assert 12 < g["CPU_SPEEDUP"]["haswell_sse"] < 14 and 3 < g["CPU_SPEEDUP"]["haswell_avx2"] < 4
    assert g["CPU_SPEEDUP_WITH_BINARIZE"]["haswell_sse"] < g["CPU_SPEEDUP"]["haswell_sse"]
    speed = g["ARRAY_SPEEDUP"]
    assert 1 < speed["binary, first + last fp32"] <= speed["binary, first fp32"] < 32
    assert g["CONV1_SHARE"] > 0.5
    assert g["BIT_EXACT"]
