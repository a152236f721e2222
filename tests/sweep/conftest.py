"""Shared fixtures of the sweep tests: small sweep files and one local Dask cluster per session."""
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).parent))  # sweep_fakes, importable by pool and Dask workers too

SMALL_SWEEP = {
    "name": "small",
    "arch": "scalesim_32x32_ws",
    "workload": "tiny_conv",
    "axes": {
        "array": [{"systolic.rows": 8, "systolic.cols": 8}, {"systolic.rows": 16, "systolic.cols": 16}],
        "systolic.dataflow": ["os", "ws", "is"],
        "systolic.ifmap_sram.size": ["16 KiB", "64 KiB"],
    },
}


@pytest.fixture(scope="session")
def dask_scheduler():
    """The address of a 2-worker local Dask cluster (worker processes, one thread each)."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    # glibc's default trim threshold, not the nanny's 64 KiB (see accel_sim.sweep.executor)
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster:
        yield cluster.scheduler_address
