"""Tutorial 3 runs top to bottom and its key results hold (one step, conflicts, barriers, AlexNet)."""
import pytest

from tests.tutorials.runner import run_tutorial


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    return run_tutorial(tmp_path_factory, "03_scnn.py")


def test_figures_are_written(tutorial):
    _, out = tutorial
    for name in ("03_bank_conflicts.png", "03_barriers.png", "03_alexnet_vs_dcnn.png"):
        assert (out / name).stat().st_size > 10_000, name


def test_one_step(tutorial):
    g, _ = tutorial
    assert 1 <= g["PRODUCTS_PER_STEP"] <= 16
    assert 1 <= g["STEP_CYCLES"] <= g["PRODUCTS_PER_STEP"]


def test_conflicts_and_barriers(tutorial):
    g, _ = tutorial
    assert 0.3 < g["CONFLICT_SHARE_PAPER_ORDER"] < 0.7   # same-output collisions of the paper's weight order
    assert g["SPREAD_SPEEDUP"] > 1.05
    assert g["FIFO_SPEEDUP"] > 1.05      # the shipped FIFOs hide part of the conflicts
    idle = g["IDLE_FRACTIONS"]
    assert idle["inception_5b_3x3"] > idle["inception_3a_3x3"]   # 7x7 planes on 8x8 PEs idle more


def test_alexnet_against_dcnn(tutorial):
    g, _ = tutorial
    assert g["totals"]["dcnn"][0] == g["totals"]["dcnn_opt"][0]
    assert g["totals"]["dcnn_opt"][1] < g["totals"]["dcnn"][1]
    assert g["ALEXNET_SPEEDUP"] > 1.0 and g["ALEXNET_ENERGY_GAIN"] > 1.0
