"""The FIFO scatter network (scnn.scatter): bad input and the scnn-scatter study's tables."""
import pytest

from accel_sim import InputError, load_arch
from accel_sim.cli.main import main


def test_bad_scatter_choices_are_refused_in_one_line(tmp_path, capsys):
    with pytest.raises(InputError, match=r"scnn\.scatter.*expected one of serialise, fifo, fifo_unbounded"):
        load_arch("scnn", {"scnn.scatter": "queue"})
    with pytest.raises(InputError, match=r"scnn\.scatter_fifo_depth.*expected a value >= 0"):
        load_arch("scnn", {"scnn.scatter_fifo_depth": -1})
    with pytest.raises(InputError, match=r"scnn\.scatter 'fifo' / 'fifo_unbounded' .* need design scnn"):
        load_arch("scnn", {"scnn.scatter": "fifo", "scnn.design": "dcnn"})
    assert main(["run", "--arch", "scnn", "--workload", "alexnet", "--out", str(tmp_path), "--set",
                 "scnn.scatter=fifo", "--set", "scnn.design=dcnn_opt"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "scnn.scatter" in err[0] and "scnn.yaml" in err[0]


def test_study_tables_put_the_fifo_choices_next_to_the_paper():
    import matplotlib
    matplotlib.use("Agg")
    from accel_sim.studies.scnn_common import SCATTER_ABLATION
    from accel_sim.studies.scnn_density_sweep import scnn_density_sweep
    from accel_sim.studies.scnn_scatter import scatter_crossovers, scatter_markdown, scnn_scatter

    out = scnn_scatter(networks=("googlenet",), layers=1, sweep_layers=1, densities=(1.0, 0.6), workers=1)
    table = out.tables["networks"]
    assert len(table) == 1 + len(SCATTER_ABLATION)
    # shipped (depth 4) first, then serialise, depth 16, unbounded: deeper FIFOs are never slower
    speedups = table.speedup_googlenet.tolist()
    by_depth = [speedups[1], speedups[0], speedups[2], speedups[3]]
    assert by_depth == sorted(by_depth) and by_depth[-1] > by_depth[0]
    assert (table.energy_gain_googlenet == table.energy_gain_googlenet.iloc[0]).all()   # FIFOs cost no energy here
    assert "| the paper (whole networks; Sec. 6 / abstract) | 2.19x | 2.7x | 2.3x |" in scatter_markdown(
        table, ("googlenet",))

    sweep = out.results
    assert sweep.choice.iloc[0].endswith("(arch_configs/scnn.yaml)")
    assert len(sweep) == (1 + len(SCATTER_ABLATION)) * 2
    for _, part in sweep.groupby("density"):
        s = part.speedup.tolist()
        assert [s[1], s[0], s[2], s[3]] == sorted(s)
    # the shipped row is the density sweep's own point (same layers, same density)
    dense = sweep[(sweep.density == 1.0) & (sweep.overrides == "")]
    plain = scnn_density_sweep(densities=(1.0,), designs=("dcnn", "scnn"), max_layers=1, workers=1, diagnostic=False)
    assert dense.speedup.iloc[0] == plain.comparisons[-1].simulated
    assert "scatter_ablation" not in plain.tables   # the FIFO choices live in scnn-scatter only
    crossings = scatter_crossovers(sweep)
    assert list(crossings) == sweep.choice.unique().tolist()
    assert "`networks.csv`" in out.readme and "10.1109/ACCESS.2022.3199010" in out.readme
    # comparison.csv: per scatter choice, the paper's speed-up and energy gain, dense speed-up and crossover
    rows = {c.quantity: c for c in out.comparisons}
    assert len(rows) == 4 * (1 + len(SCATTER_ABLATION))
    serialise = SCATTER_ABLATION[0][0]
    network = rows[f"SCNN speed-up over DCNN, googlenet, {serialise} (first 1 conv layers; the paper: whole network)"]
    assert (network.published, network.simulated) == (2.19, table.speedup_googlenet.iloc[1])
    fifo = sweep.choice.iloc[0]   # the shipped choice
    crossing = next(c for q, c in rows.items() if q.startswith("density below") and fifo in q)
    assert crossing.published == 0.85 and crossing.absolute and crossing.tolerance is None
    assert all(c.tolerance is None for c in out.comparisons)   # subsets: no bar here
