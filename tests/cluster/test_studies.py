"""The distributed-training and training-memory studies: their published rows and the laws behind them."""
import pandas as pd
import pytest

from accel_sim.cli import main


@pytest.fixture(scope="module")
def distributed(tmp_path_factory):
    out = tmp_path_factory.mktemp("distributed")
    assert main(["reproduce", "distributed-training", "--out", str(out)]) == 0
    return out


def test_distributed_training_rows_and_scaling(distributed):
    comparison = pd.read_csv(distributed / "comparison.csv")
    bar = comparison[comparison.quantity.str.contains("three techniques together vs none")].iloc[0]
    assert bar.published == 1.8 and bar.tolerance == 0.2 and bar.simulated > 1
    frame = pd.read_csv(distributed / "results.csv")
    assert set(frame.devices) == {1, 2, 4, 8, 16, 32, 64} and set(frame.network) == {"alexnet_dense", "resnet50"}
    assert frame.techniques.nunique() == 8
    one = frame[frame.devices == 1]
    assert (one.speedup.round(9) == 1).all()          # one device: no communication, whatever the switches
    for _, group in frame.groupby(["network", "devices"]):
        steps = group.set_index("techniques").step_s
        # every technique set lies between all three and none; the step never beats compute
        assert steps["backward overlap + forward overlap + host pipelining"] <= steps.min() * (1 + 1e-9)
        assert steps["none"] >= steps.max() * (1 - 1e-9)
        assert (group.step_s >= group.compute_s * (1 - 1e-9)).all()
    none = frame[(frame.techniques == "none") & (frame.devices > 1)]
    # with no technique the step is compute + every copy + every reduction + the update, all exposed
    assert (none.step_s - (none.compute_s + none.copy_busy_s + none.reduce_busy_s + none.update_s)).abs().max() < 1e-9
    assert (frame.update_s > 0).all()


def test_precision_and_power_cap(distributed):
    precision = pd.read_csv(distributed / "precision.csv").set_index("data_type")
    assert precision.loc["int8", "samples_per_s"] > precision.loc["int16", "samples_per_s"] > \
        precision.loc["fp32", "samples_per_s"]
    assert (precision.devices == precision.devices.iloc[0]).all()   # board power fixed: same devices in the cap
    assert precision.loc["fp32", "power_w"] <= 25_000


def test_training_memory_meets_the_40_percent_bar(tmp_path):
    assert main(["reproduce", "training-memory", "--out", str(tmp_path)]) == 0
    frame = pd.read_csv(tmp_path / "results.csv").set_index(["network", "schedule"])
    for network in ("alexnet_dense", "vgg16_dense"):
        assert frame.loc[(network, "reordered"), "reduction_vs_conventional"] >= 0.40
        assert frame.loc[(network, "reordered"), "peak_bytes"] <= frame.loc[(network, "liveness"), "peak_bytes"]
    fits = pd.read_csv(tmp_path / "fits.csv").set_index(["network", "schedule"])
    assert (fits.xs("reordered", level=1).largest_batch > fits.xs("conventional", level=1).largest_batch).all()
