"""The SCNN studies, on reduced inputs: table shapes, totals, comparisons, figures."""
import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from accel_sim.studies.registry import all_studies  # noqa: E402
from accel_sim.studies.scnn_density_sweep import scnn_density_sweep  # noqa: E402
from accel_sim.studies.scnn_networks import scnn_networks  # noqa: E402
from accel_sim.studies.scnn_utilization import scnn_utilization  # noqa: E402


def test_studies_are_registered():
    assert {"scnn-networks", "scnn-density-sweep", "scnn-utilization"} <= set(all_studies())


def test_networks_table_has_layer_rows_and_totals():
    out = scnn_networks(networks=("googlenet",), max_layers=3)
    frame = out.results
    assert list(frame.columns) == ["network", "layer", "design", "cycles", "energy_pj"]
    for _, part in frame.groupby(["network", "design"]):
        total = part[part.layer == "all"]
        assert len(total) == 1
        assert total.cycles.iloc[0] == part[part.layer != "all"].cycles.sum()
        assert total.energy_pj.iloc[0] == pytest.approx(part[part.layer != "all"].energy_pj.sum())
    dcnn = frame[frame.design == "dcnn"].set_index(["network", "layer"]).cycles
    opt = frame[frame.design == "dcnn_opt"].set_index(["network", "layer"]).cycles
    assert dcnn.equals(opt)
    assert [c.published for c in out.comparisons[:2]] == [2.7, 2.3]
    assert [c.tolerance for c in out.comparisons[:2]] == [0.20, 0.25]


def test_density_sweep_table_and_ordering():
    out = scnn_density_sweep(densities=(1.0, 0.2), max_layers=1, workers=1)
    frame = out.results
    assert list(frame.columns) == ["density", "design", "cycles", "energy_pj"]
    assert len(frame) == 10
    cycles = frame.pivot(index="density", columns="design", values="cycles")
    assert cycles.loc[0.2, "scnn"] < cycles.loc[1.0, "scnn"]
    assert cycles.loc[0.2, "dcnn"] == cycles.loc[1.0, "dcnn"] == cycles.loc[0.2, "dcnn_opt"]
    assert cycles.loc[0.2, "scnn"] < cycles.loc[0.2, "scnn_sparse_a"]
    assert any("faster than DCNN" in c.quantity for c in out.comparisons)


def test_utilization_table():
    frame = scnn_utilization(networks=("googlenet",), max_layers=2).results
    assert len(frame) == 2
    assert ((frame.multiplier_utilization > 0) & (frame.multiplier_utilization <= 1)).all()
    assert ((frame.barrier_idle_fraction >= 0) & (frame.barrier_idle_fraction < 1)).all()
    assert (frame.intra_pe_utilization >= frame.multiplier_utilization).all()


def test_density_sweep_in_processes_equals_serial():
    serial = scnn_density_sweep(densities=(0.5, 0.1), designs=("dcnn", "scnn"), max_layers=1, workers=1).results
    parallel = scnn_density_sweep(densities=(0.5, 0.1), designs=("dcnn", "scnn"), max_layers=1, workers=2).results
    assert serial.equals(parallel)


def test_pe_granularity_keeps_1024_multipliers():
    from accel_sim.studies.scnn_pe_granularity import scnn_pe_granularity
    frame = scnn_pe_granularity(max_layers=2).results
    assert (frame.pes * frame.multipliers_per_pe == 1024).all()
    assert frame.pes.tolist() == [64, 16, 4]
    assert (frame.cycles > 0).all()
