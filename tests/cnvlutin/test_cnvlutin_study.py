"""The cnvlutin study, reduced to the first conv layers of each network."""
import matplotlib

matplotlib.use("Agg")

from accel_sim.studies.cnvlutin import COLUMNS, cnvlutin_study  # noqa: E402
from accel_sim.studies.registry import all_studies  # noqa: E402


def test_study_is_registered():
    assert "cnvlutin" in all_studies()


def test_reduced_study_columns_speedups_and_comparisons():
    out = cnvlutin_study(networks=("alexnet",), max_layers=3)
    frame = out.results
    assert list(frame.columns) == COLUMNS
    layers = frame[frame.layer != "all conv"].set_index("layer")
    assert layers.speedup["conv1"] == 1.0          # dense image: nothing to skip
    assert layers.speedup["conv3"] > layers.speedup["conv2"] > 1.0  # sparser input, larger speed-up
    assert (frame.speedup < 1 / frame.input_density + 1e-9).all()  # never above the ideal
    quantities = [c.quantity for c in out.comparisons]
    assert any("alexnet" in q for q in quantities) and all(c.published and c.source for c in out.comparisons)
    alexnet = frame[frame.layer == "all conv"].speedup.iloc[0]
    assert out.comparisons[0].simulated == alexnet
    assert out.comparisons[0].relative_error == (alexnet - 1.37) / 1.37


def test_readme_numbers_come_from_the_data():
    out = cnvlutin_study(networks=("alexnet",), max_layers=3)
    frame = out.results
    total = frame[frame.layer == "all conv"].speedup.iloc[0]
    assert f"the network's speed-up is {total:.2f}x" in out.readme
    later = frame[(frame.layer != "all conv") & (frame.input_density < 1)]
    assert f"{later.speedup.min():.2f}x to {later.speedup.max():.2f}x" in out.readme
