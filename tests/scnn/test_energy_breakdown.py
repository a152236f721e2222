"""The SCNN studies' energy breakdown (issue 15): energy = sum of its components for every design, the
gains it reports are the studies' own, and the implied per-product scale solves what it says it solves."""
import math

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from accel_sim.studies.scnn_density_sweep import scnn_density_sweep  # noqa: E402
from accel_sim.studies.scnn_energy import STATIC, TOTAL, implied_per_product_scale  # noqa: E402
from accel_sim.studies.scnn_networks import scnn_networks  # noqa: E402

DESIGNS = ("dcnn", "dcnn_opt", "scnn")


@pytest.fixture(scope="module")
def networks():
    return scnn_networks(networks=("googlenet", "alexnet"), max_layers=2, ablation=False)


def test_components_add_up_to_each_designs_energy_and_shares_to_one(networks):
    table = networks.tables["energy_breakdown"]
    totals = networks.results[networks.results.layer == "all"].set_index(["network", "design"]).energy_pj
    for point, rows in table.groupby("point"):
        parts = rows[~rows.component.isin([TOTAL, STATIC])]
        total = rows[rows.component == TOTAL].iloc[0]
        assert parts.dcnn_share.sum() == pytest.approx(1.0)
        for design in DESIGNS:
            assert parts[f"{design}_pj"].sum() == pytest.approx(total[f"{design}_pj"])
            assert total[f"{design}_pj"] == pytest.approx(totals[(point, design)])   # results.csv's totals
        # the total row's gain is the study's gain; leaving out a component the design does not charge (DCNN
        # has no crossbar) leaves only DCNN's energy and vice versa
        assert total.gain_scnn_without == pytest.approx(totals[(point, "dcnn")] / totals[(point, "scnn")])
        crossbar = rows[rows.component == "crossbar"].iloc[0]
        assert crossbar.dcnn_pj == 0 and crossbar.scnn_pj > 0
        assert crossbar.gain_scnn_without == pytest.approx(total.dcnn_pj / (total.scnn_pj - crossbar.scnn_pj))
        assert math.isnan(crossbar.dcnn_over_dcnn_opt)
        static = rows[rows.component == STATIC].iloc[0]
        assert static.gain_scnn_without == pytest.approx((total.dcnn_pj + static.dcnn_pj)
                                                         / (total.scnn_pj + static.scnn_pj))
    gains = {c.quantity: c.simulated for c in networks.comparisons}
    mean = table[table.component == TOTAL].gain_scnn_without.mean()
    assert gains["SCNN energy reduction over DCNN, mean of the networks"] == pytest.approx(mean)
    assert "## Where the energy gap is" in networks.readme


def test_dense_partial_sums_table_switches_both_dense_designs(networks):
    table = networks.tables["dense_partial_sums"].set_index("network")
    totals = networks.results[networks.results.layer == "all"].set_index(["network", "design"]).energy_pj
    for name, row in table.iterrows():
        assert row.dcnn_pj == pytest.approx(totals[(name, "dcnn")])
        assert row.gain_scnn == pytest.approx(totals[(name, "dcnn")] / totals[(name, "scnn")])
        # the same partial-sum updates land on DCNN and DCNN-opt (gating saves multiplies, not updates)
        assert row.dcnn_buffer_pj - row.dcnn_pj == pytest.approx(row.dcnn_opt_buffer_pj - row.dcnn_opt_pj)
        assert row.dcnn_buffer_pj > row.dcnn_pj
        assert row.gain_scnn_buffer > row.gain_scnn and row.gain_dcnn_opt_buffer < row.gain_dcnn_opt
    assert "`dense_partial_sums.csv`" in networks.readme


def test_implied_per_product_scale_solves_for_the_mean_gain():
    # one point: dcnn 100, design 80 of which 40 per product: 100 / (40 + 40 x) = 2 at x = 0.25
    assert implied_per_product_scale([(100.0, 80.0, 40.0)], 2.0) == pytest.approx(0.25)
    # a target above the gain with the per-product energy free is out of reach
    assert implied_per_product_scale([(100.0, 80.0, 40.0)], 2.6) is None
    # a target below the current gain needs more than the table's energy (x > 1)
    assert implied_per_product_scale([(100.0, 80.0, 40.0)], 1.0) == pytest.approx(1.5)
    points = [(100.0, 80.0, 40.0), (90.0, 50.0, 20.0)]
    x = implied_per_product_scale(points, 2.0)
    assert sum(d / (s - p + x * p) for d, s, p in points) / 2 == pytest.approx(2.0)


def test_density_sweep_breakdown_is_the_dense_point_of_the_sweep():
    out = scnn_density_sweep(densities=(1.0, 0.5), designs=DESIGNS, max_layers=2, workers=1, diagnostic=False)
    table = out.tables["energy_breakdown"]
    assert set(table.point) == {"density 1"}
    total = table[table.component == TOTAL].iloc[0]
    sweep = out.results[out.results.density == 1.0].set_index("design").energy_pj
    for design in DESIGNS:
        assert total[f"{design}_pj"] == pytest.approx(sweep[design])
    by_quantity = {c.quantity: c for c in out.comparisons}
    dense = by_quantity["SCNN energy relative to DCNN at density 1"]
    assert dense.published == 1.33
    assert dense.simulated == pytest.approx(sweep["scnn"] / sweep["dcnn"])
    assert "density below which SCNN uses less energy than DCNN-opt (interpolated; NaN: never)" in by_quantity
    assert "## Energy at density 1" in out.readme


def test_tiling_penalty_reruns_only_the_tiled_layers_in_one_pass():
    from accel_sim.pipeline.catalog import load_arch
    from accel_sim.studies.scnn_common import conv_network, run_archs, scnn_variant
    from accel_sim.studies.scnn_energy import tiling_penalty
    from accel_sim.foundations.workload.layer import Network

    full = conv_network("vgg16")
    network = Network(full.name, tuple(layer for layer in full.layers if layer.name in ("conv2_1", "conv5_3")),
                      full.source, full.description)
    frames = run_archs(network, {"scnn": load_arch("scnn"), "one pass": scnn_variant({"dram": "ignored"})})
    scnn = frames["scnn"]
    assert list(scnn.temporal_tiles) == [4, 1]   # conv2_1 does not fit the 10 KB IARAMs, conv5_3 does
    table = tiling_penalty("vgg16", scnn)
    assert list(table.layer) == ["conv2_1"]
    row = table.iloc[0]
    assert row.energy_pj == scnn.energy_pj.iloc[0]
    assert row.energy_one_pass_pj == frames["one pass"].energy_pj.iloc[0]
    assert row.penalty == pytest.approx(row.energy_pj / row.energy_one_pass_pj - 1)
    assert row.penalty > 0   # the passes move inputs, outputs and weights again through DRAM
    assert tiling_penalty("vgg16", scnn.iloc[1:]).empty
