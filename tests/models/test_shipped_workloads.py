"""Every shipped workload runs on the default accelerator and obeys the conservation laws."""
import pytest

from accel_sim import load_arch, load_workload, simulate
from accel_sim.foundations.workload.loader import WORKLOAD_DIR
from tests.models.test_conservation import check_laws

WORKLOADS = sorted(WORKLOAD_DIR.glob("*.yaml"))


@pytest.mark.parametrize("path", WORKLOADS, ids=lambda p: p.stem)
def test_workload_runs_on_default_arch(path):
    arch = load_arch("tpu_like_128x128_ws")
    network = load_workload(path)
    run = simulate(arch, network)
    assert len(run.layers) == len(network.layers)
    check_laws(arch, network, run)
