"""The distributed-training study's precision sweep through ``accel-sim sweep --scheduler`` on a real Dask
LocalCluster (in-process workers), identical to the serial run."""
from pathlib import Path

import pandas as pd
import pytest

from accel_sim.cli.main import main
from accel_sim.pipeline.sweep import load_results

SWEEP = Path(__file__).resolve().parents[2] / "sweeps" / "dlu_training_precision.yaml"


@pytest.fixture(scope="module")
def scheduler():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


def test_training_sweep_on_dask_equals_serial(tmp_path, scheduler, capsys):
    assert main(["sweep", str(SWEEP), "--out", str(tmp_path / "dask"), "--scheduler", scheduler, "--quiet"]) == 0
    assert "4 computed" in capsys.readouterr().out
    assert main(["sweep", str(SWEEP), "--out", str(tmp_path / "serial"), "--quiet"]) == 0
    dask, serial = load_results(tmp_path / "dask"), load_results(tmp_path / "serial")
    pd.testing.assert_frame_equal(dask, serial, check_exact=True)
    by_type = serial.set_index("dlu.data_type")
    # a training step: backward (two GEMMs per layer but the first) takes longer than forward
    assert (by_type["backward_s"] > by_type["forward_s"]).all()
    assert by_type.loc["int8", "step_s"] < by_type.loc["int16", "step_s"] < by_type.loc["fp32", "step_s"]
    assert by_type["macs_dense"].nunique() == 1
