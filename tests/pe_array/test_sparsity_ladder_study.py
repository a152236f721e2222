"""The sparsity-ladder study, reduced: its columns and the ladder's shape on a real layer."""
import matplotlib

matplotlib.use("Agg")

from accel_sim.studies.registry import all_studies  # noqa: E402
from accel_sim.studies.sparsity_ladder import COLUMNS, sparsity_ladder  # noqa: E402


def test_study_is_registered():
    assert "sparsity-ladder" in all_studies()


def test_reduced_ladder_on_a_real_layer():
    out = sparsity_ladder(densities=(1.0, 0.2), patterns=("unstructured", "2:4", "filter"), layer_name="conv5_1")
    frame = out.results
    assert list(frame.columns) == COLUMNS == ["support", "pattern", "density", "cycles", "energy_pj", "dram_read_bytes"]
    sparse = frame[(frame.pattern == "unstructured") & (frame.density == 0.2)].set_index("support")
    dense = frame[(frame.pattern == "unstructured") & (frame.density == 1.0)].set_index("support")
    assert sparse.cycles["gating"] == sparse.cycles["none"] == dense.cycles["none"]
    assert sparse.energy_pj["gating"] < sparse.energy_pj["memory"]
    assert sparse.cycles["skipping"] < sparse.cycles["none"] / 3
    assert sparse.cycles["reassignment"] <= sparse.cycles["skipping"]
    assert sparse.dram_read_bytes["memory"] < sparse.dram_read_bytes["none"]
    two_four = frame[frame.pattern == "2:4"].set_index("support")
    assert two_four.cycles["skipping"] < 0.51 * two_four.cycles["none"] + 10 * 32
    channel = frame[(frame.pattern == "filter") & (frame.density == 0.2)].set_index("support")
    assert channel.cycles["reassignment"] < channel.cycles["skipping"]
    assert "conv" in out.readme and out.figure is not None
