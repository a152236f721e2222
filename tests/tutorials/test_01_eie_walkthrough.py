"""Tutorial 1 runs top to bottom and its key results hold (encoding, cycle-by-cycle run, FIFO depth)."""
import pytest

from tests.tutorials.runner import run_tutorial


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    return run_tutorial(tmp_path_factory, "01_eie_walkthrough.py")


def test_figures_and_trace_are_written(tutorial):
    _, out = tutorial
    for name in ("01_example_timeline.png", "01_fifo_depth.png"):
        assert (out / name).stat().st_size > 10_000, name
    assert (out / "01_example_trace.json").stat().st_size > 1_000
    assert (out / "01_example_trace.html").stat().st_size > 10_000
    assert len((out / "01_example_cycles.txt").read_text().splitlines()) > 16


def test_encoding_is_figure_2(tutorial):
    g, _ = tutorial
    assert g["PE0_REL_INDEX"] == [0, 1, 0, 1, 0, 2, 0, 0, 0, 2, 0, 2, 0]
    assert g["PE0_COL_PTR"] == [0, 3, 4, 6, 6, 8, 10, 11, 13]
    assert g["fig3"].pes[0].rel_index.tolist() == [2, 0, 15, 2]


def test_the_cycle_by_cycle_story_the_prose_tells(tutorial):
    g, _ = tutorial
    assert g["EXAMPLE_CYCLES"] == 16
    assert g["EXAMPLE_BROADCAST_CYCLES"] == [1, 2, 3, 5, 8, 10]
    assert g["EXAMPLE_PE_ENTRIES"][3] == 14 and g["EXAMPLE_PE_ENTRIES"][2] == 6
    assert g["EXAMPLE_OUTPUTS_MATCH"]


def test_full_size_layer(tutorial):
    g, _ = tutorial
    assert g["LSTM_CYCLES"] > g["LSTM_IDEAL_CYCLES"] > 0
    assert 0.8 < g["LSTM_EFFICIENCY"] < 1 and 0 < g["LSTM_PADDING"] < 0.2


def test_fifo_depth_effect(tutorial):
    g, _ = tutorial
    eff = g["EFFICIENCY"]
    for layer in eff.columns:
        assert eff[layer].is_monotonic_increasing
        assert eff.loc[8, layer] - eff.loc[1, layer] > 0.15          # steep up to 8
        assert eff.loc[64, layer] - eff.loc[8, layer] < 0.05         # flat beyond
        assert 0.6 < eff.loc[1, layer] < 0.8                         # "about 0.7" in the prose
