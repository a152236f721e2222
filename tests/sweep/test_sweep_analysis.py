"""Pareto front and sensitivity on hand-made frames (answers worked out by hand), and their plots."""
import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from accel_sim.pipeline.plot.sweep import pareto_plot, sensitivity_plot
from accel_sim.pipeline.sweep import pareto_front, pareto_mask, sensitivity

# name, energy_pj, cycles, area_mm2
POINTS = [
    ("a", 1.0, 9.0, 5.0),   # front: least energy
    ("b", 2.0, 5.0, 1.0),   # front
    ("c", 3.0, 5.0, 0.5),   # dominated by b in 2-D (same cycles, more energy); front in 3-D (least area)
    ("d", 4.0, 2.0, 2.0),   # front: least cycles
    ("e", 4.0, 6.0, 3.0),   # dominated by b in 2-D and 3-D
    ("f", 2.0, 5.0, 1.0),   # equal to b: neither dominates, both stay
    ("g", 9.0, 9.0, 9.0),   # dominated by everything
]
FRAME = pd.DataFrame(POINTS, columns=["name", "energy_pj", "cycles", "area_mm2"]).sample(frac=1, random_state=1)


def brute_force_front(frame, objectives):
    values = frame[list(objectives)].to_numpy()
    keep = [not any((q <= p).all() and (q < p).any() for q in values) for p in values]
    return set(frame["name"][keep])


def test_pareto_front_energy_cycles():
    front = pareto_front(FRAME)
    assert set(front["name"]) == {"a", "b", "f", "d"}
    assert front["energy_pj"].is_monotonic_increasing and front["cycles"].is_monotonic_decreasing
    assert pareto_mask(FRAME).index.equals(FRAME.index)


def test_pareto_front_with_area():
    assert set(pareto_front(FRAME, ("energy_pj", "cycles", "area_mm2"))["name"]) == {"a", "b", "c", "d", "f"}


def test_pareto_front_matches_brute_force_on_random_frames():
    rng = np.random.default_rng(0)
    for _ in range(20):
        frame = pd.DataFrame(rng.integers(0, 6, size=(40, 3)), columns=["energy_pj", "cycles", "area_mm2"])
        frame["name"] = [f"p{i}" for i in range(40)]
        for objectives in (("energy_pj", "cycles"), ("energy_pj", "cycles", "area_mm2")):
            assert set(pareto_front(frame, objectives)["name"]) == brute_force_front(frame, objectives)


def test_pareto_rejects_missing_columns_and_nan():
    with pytest.raises(KeyError, match="no column area"):
        pareto_front(FRAME, ("energy_pj", "area"))
    with pytest.raises(ValueError, match="NaN"):
        pareto_front(pd.DataFrame({"energy_pj": [1.0, np.nan], "cycles": [1, 2]}))


def grid_frame():
    """metric = 10 * size + (5 if dataflow == ws) + 0 * seed: size matters most, seed not at all."""
    rows = [{"size": s, "dataflow": d, "seed": k, "metric": 10 * s + (5 if d == "ws" else 0)}
            for s, d, k in itertools.product([1, 2, 3], ["os", "ws"], [0, 1])]
    frame = pd.DataFrame(rows)
    frame.attrs["axes"] = ["seed", "dataflow", "size"]
    return frame


def test_sensitivity_ranks_axes_by_range_of_means():
    table = sensitivity(grid_frame(), "metric")
    assert table["axis"].tolist() == ["size", "dataflow", "seed"]
    assert table["range"].tolist() == [20.0, 5.0, 0.0]
    size = table.iloc[0]
    assert (size["value_at_min"], size["min_mean"], size["value_at_max"], size["max_mean"]) == (1, 12.5, 3, 32.5)
    assert size["relative_range"] == pytest.approx(20 / 22.5)
    assert table.iloc[1]["value_at_max"] == "ws" and table.iloc[1]["levels"] == 2


def test_sensitivity_needs_axes():
    frame = grid_frame()
    frame.attrs.clear()
    with pytest.raises(ValueError, match="axis columns"):
        sensitivity(frame, "metric")
    assert sensitivity(frame, "metric", ["dataflow"])["range"].tolist() == [5.0]


def test_plots_return_figures():
    for fig in (pareto_plot(FRAME), pareto_plot(FRAME, color_by="name"),
                sensitivity_plot(grid_frame(), "metric")):
        assert isinstance(fig, Figure) and fig.axes
        plt.close(fig)
