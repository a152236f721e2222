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
    out = scnn_networks(networks=("googlenet",), max_layers=3, ablation=False)
    frame = out.results
    assert list(frame.columns) == ["network", "layer", "design", "cycles", "energy_pj", "steps",
                                   "bank_conflict_cycles"]
    for _, part in frame.groupby(["network", "design"]):
        total = part[part.layer == "all"]
        assert len(total) == 1
        assert total.cycles.iloc[0] == part[part.layer != "all"].cycles.sum()
        assert total.energy_pj.iloc[0] == pytest.approx(part[part.layer != "all"].energy_pj.sum())
    dcnn = frame[frame.design == "dcnn"].set_index(["network", "layer"]).cycles
    opt = frame[frame.design == "dcnn_opt"].set_index(["network", "layer"]).cycles
    assert dcnn.equals(opt)
    # the tiled-layer count is published for the three whole networks only; GoogLeNet's first layers are not tiled
    # the last row: the mean energy gain with dram_tile_order: min_traffic (no multi-pass layer here: as shipped)
    assert [c.published for c in out.comparisons] == [2.7, 2.3, 2.19, 2.0, None, 2.3]
    assert [c.tolerance for c in out.comparisons] == [0.20, 0.25, 0.20, None, None, None]
    assert out.comparisons[-2].simulated == 0
    assert out.comparisons[-1].simulated == out.comparisons[1].simulated
    assert set(out.tables) == {"energy_breakdown", "temporal_tiling", "dense_partial_sums", "dram_tile_order"}


def test_networks_ablation_flips_one_choice_per_row():
    from accel_sim.studies.scnn_common import ABLATION
    out = scnn_networks(networks=("googlenet",), max_layers=1,
                        designs=("dcnn", "scnn"))
    table = out.tables["ablation"]
    assert len(table) == 1 + len(ABLATION)
    paper = table.iloc[0]
    totals = out.results[out.results.layer == "all"].set_index("design")
    assert paper.speedup_googlenet == totals.cycles["dcnn"] / totals.cycles["scnn"]
    assert paper.mean_speedup == paper.speedup_googlenet
    by_overrides = table.set_index("overrides")
    # flips that cannot change GoogLeNet's first 1x1 layer (no DRAM pass stalls at this size) leave the speed-up as is;
    # the DNNsim barrier per (group, channel) can only add idle time
    assert by_overrides.loc["dram=ignored", "speedup_googlenet"] == paper.speedup_googlenet
    assert by_overrides.loc["barrier=group_channel", "speedup_googlenet"] <= paper.speedup_googlenet
    assert "| choice flipped |" in out.readme and "ablation.csv" in out.readme


def test_arch_config_sets_every_modelling_choice_with_its_source():
    from pathlib import Path

    import yaml

    path = Path(__file__).resolve().parents[2] / "arch_configs" / "scnn.yaml"
    section = yaml.safe_load(path.read_text())["scnn"]
    choices = ("weight_order", "bank_mapping", "kc_rule", "barrier", "partition", "halo_charge", "out_of_plane",
               "dram", "halo_words_per_cycle", "ppu_outputs_per_cycle", "dram_bandwidth")
    assert set(choices) <= set(section)
    comment = path.read_text()
    for choice in choices:   # the setting's own line or the comment block just above cites the paper or says assumption
        lines = comment.splitlines()
        at = next(i for i, line in enumerate(lines) if line.strip().startswith(f"{choice}:"))
        context = "\n".join(lines[max(0, at - 6):at + 1])
        assert "paper" in context or "assumption" in context, choice


def test_crossover_is_interpolated_between_swept_densities():
    import pandas as pd

    from accel_sim.studies.scnn_density_sweep import crossover

    def frame(scnn_cycles):
        rows = [{"density": d, "design": "dcnn", "cycles": 100} for d in scnn_cycles]
        rows += [{"density": d, "design": "scnn", "cycles": c} for d, c in scnn_cycles.items()]
        return pd.DataFrame(rows)

    # speed-up 0.8 at 1.0, 1.25 at 0.9: crosses 1 at 1.0 - 0.1 * 0.2 / 0.45
    assert crossover(frame({1.0: 125, 0.9: 80, 0.8: 50}), "scnn", "cycles") == pytest.approx(1.0 - 0.02 / 0.45)
    assert crossover(frame({1.0: 90, 0.9: 80}), "scnn", "cycles") == 1.0
    assert crossover(frame({1.0: 200, 0.9: 150}), "scnn", "cycles") is None


def test_absolute_tolerance_bars_the_difference_not_the_ratio():
    from accel_sim.studies.registry import Comparison, comparison_markdown

    near = Comparison("crossover", "density", 0.85, 0.76, "paper", tolerance=0.1, absolute=True)
    far = Comparison("crossover", "density", 0.85, 0.74, "paper", tolerance=0.1, absolute=True)
    assert near.within_tolerance is True and far.within_tolerance is False
    assert Comparison("x", "density", 0.85, float("nan"), "p", tolerance=0.1, absolute=True).within_tolerance is None
    assert "0.1 absolute (met)" in comparison_markdown((near,))[2]


def test_study_tables_are_written_as_csv(tmp_path):
    import pandas as pd
    from matplotlib.figure import Figure

    from accel_sim.studies.registry import Study, StudyOutput, write_study

    table = pd.DataFrame({"choice": ["a"], "mean_speedup": [1.5]})
    study = Study("t", "T", lambda: StudyOutput(pd.DataFrame({"x": [1]}), Figure(), "text", (), {"ablation": table}))
    write_study(study, tmp_path)
    assert pd.read_csv(tmp_path / "ablation.csv").equals(table)
    assert "`ablation.csv`" in (tmp_path / "README.md").read_text()


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
    faster = next(c for c in out.comparisons if "faster than DCNN" in c.quantity)
    assert (faster.published, faster.tolerance, faster.absolute) == (0.85, 0.1, True)


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


def test_a_study_in_a_worker_process_runs_its_jobs_there():
    """Inside a worker of reproduce --jobs (a forked process) the studies' jobs run in that process (no more
    processes on cores its siblings fill); in the main process, one per core."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor
    from accel_sim.studies.scnn_density_sweep import default_workers
    assert default_workers() == (os.cpu_count() or 1)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork")) as pool:
        assert pool.submit(default_workers).result() == 1


def test_pe_granularity_keeps_1024_multipliers():
    from accel_sim.studies.scnn_pe_granularity import scnn_pe_granularity
    frame = scnn_pe_granularity(max_layers=2).results
    assert (frame.pes * frame.multipliers_per_pe == 1024).all()
    assert frame.pes.tolist() == [64, 16, 4]
    assert (frame.cycles > 0).all()


def test_dense_diagnostic_flips_order_and_hash_and_matches_the_sweep():
    from accel_sim.studies.scnn_common import DENSE_DIAGNOSTIC
    from accel_sim.studies.scnn_density_sweep import DIAGNOSTIC_DENSITIES

    out = scnn_density_sweep(densities=(1.0,), designs=("dcnn", "scnn"), max_layers=1, workers=1)
    table = out.tables["dense_diagnostic"]
    assert len(table) == len(DENSE_DIAGNOSTIC) * len(DIAGNOSTIC_DENSITIES)
    dense = table[table.density == 1.0].set_index("overrides")
    at_one = next(c for c in out.comparisons if c.quantity.startswith("SCNN speed-up over DCNN at density"))
    assert dense.loc["", "speedup"] == at_one.simulated     # the paper row is the sweep's own density-1.0 point
    assert ((table.busy_cycles_per_step >= 1) & (table.conflict_share >= 0) & (table.conflict_share < 1)).all()
    # GoogLeNet's first layer is 1x1: with K fastest an F-vector is F consecutive channels at one tap, and the
    # channel-spread hash puts them on F different banks, so a dense step never conflicts
    assert dense.loc["weight_order=k_then_rs, bank_mapping=channel_spread", "busy_cycles_per_step_1x1"] == 1.0
    assert "`dense_diagnostic.csv`" in out.readme


def test_expected_busiest_bank_is_exact_balls_into_bins():
    from accel_sim.studies.scnn_common import expected_busiest_bank

    assert expected_busiest_bank(1, 4) == pytest.approx(1.0)
    assert expected_busiest_bank(2, 2) == pytest.approx(1.5)          # same bank with probability 1/2
    assert expected_busiest_bank(3, 3) == pytest.approx(17 / 9)        # max 1: 6/27, max 3: 3/27, else 2
    assert expected_busiest_bank(16, 32) == pytest.approx(2.3924, abs=1e-4)
    assert expected_busiest_bank(16, 16) > expected_busiest_bank(16, 32) > expected_busiest_bank(16, 64) > 1
