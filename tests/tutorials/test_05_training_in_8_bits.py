"""Tutorial 5 runs top to bottom and its key results hold (rules, watched points, accuracy per format)."""
import pytest

from tests.tutorials.runner import run_tutorial


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    return run_tutorial(tmp_path_factory, "05_training_in_8_bits.py")


def test_figures_are_written(tutorial):
    _, out = tutorial
    for name in ("05_histograms.png", "05_points.png", "05_accuracy_energy.png"):
        assert (out / name).stat().st_size > 10_000, name


def test_point_trade_off_and_rules(tutorial):
    g, _ = tutorial
    assert g["SATURATED"][2] == g["SATURATED"][5] == 0 < g["SATURATED"][7]
    assert g["RULE_POINTS"] == {"overflow": 5, "max": 6, "percentile": 6}   # one bit vs straight to the fit


def test_watched_training_and_formats(tutorial):
    g, _ = tutorial
    acc = g["ACCURACY"]
    assert acc["float32"] >= 0.95
    assert acc["dfp16"] >= acc["float32"] - 0.01        # short schedule; the 0.5-point bar: tests/dlu
    assert acc["dfp8"] >= acc["float32"] - 0.03
    assert acc["static8"] < acc["dfp8"] - 0.1
    da2 = g["POINTS"]["da2"]
    assert sum(da2[-20:]) / 20 > sum(da2[1:21]) / 20     # gradients shrink: more fraction bits late
    assert g["POINTS"]["w1"][0] <= 8
    assert g["ENERGY_VS_FP32"]["dfp8"] < g["ENERGY_VS_FP32"]["dfp16"] < 1
    assert g["CYCLES_VS_FP32"]["dfp8"] < g["CYCLES_VS_FP32"]["dfp16"] < 1
