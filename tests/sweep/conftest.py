"""The local Dask cluster the sweep tests share (one per session)."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # sweep_fakes, importable by pool and Dask workers too


@pytest.fixture(scope="session")
def dask_scheduler():
    """The address of a 2-worker local Dask cluster (worker processes, one thread each)."""
    dask = pytest.importorskip("dask")
    distributed = pytest.importorskip("distributed")
    # glibc's default trim threshold, not the nanny's 64 KiB (see accel_sim.pipeline.sweep.executor)
    with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                     dashboard_address=None) as cluster:
        yield cluster.scheduler_address
