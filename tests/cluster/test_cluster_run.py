"""A cluster config to results: every shipped config runs; energy, power cap and scaling laws; determinism."""
import dataclasses
import math
from pathlib import Path

import pytest

from accel_sim.systems.cluster.plan import Techniques
from accel_sim.systems.cluster.run import run_cluster
from accel_sim.systems.cluster.spec import CLUSTER_DIR, load_cluster
from accel_sim.systems.training.timing import network_timing

CONFIGS = sorted(CLUSTER_DIR.glob("*.yaml"))


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: Path(p).stem)
def test_every_shipped_cluster_config_loads_and_runs(path):
    loaded = load_cluster(path)
    result = run_cluster(loaded)
    spec = loaded.spec
    assert result.devices == spec.devices and result.hosts == math.ceil(spec.devices / spec.devices_per_host)
    assert result.step_s >= (result.compute_s + result.update_s) * (1 - 1e-9)
    # energy of a step = boards and hosts at their power for the step
    assert result.power_w == pytest.approx(spec.devices * spec.device.power + result.hosts * spec.host.power)
    assert result.energy_j == pytest.approx(result.power_w * result.step_s)
    per_device = spec.device.power + spec.host.power / spec.devices_per_host
    assert result.devices_in_power_cap == math.floor(spec.power_cap / per_device)
    assert result.samples_per_s == pytest.approx(spec.devices * spec.device.batch / result.step_s)
    # one device computes and updates, nothing else
    assert result.scaling_efficiency == pytest.approx((result.compute_s + result.update_s) / result.step_s)
    if spec.device.update_bandwidth is not None:   # the update streams every weight's bytes once a step
        weights = sum(layer.weight_elements for layer in loaded.network.layers)
        assert result.update_s == pytest.approx(weights * spec.device.update_bytes_per_weight
                                                / spec.device.update_bandwidth)


def test_same_config_same_result_bit_for_bit():
    loaded = load_cluster("dlu_64_edr")
    assert run_cluster(loaded).row() == run_cluster(load_cluster("dlu_64_edr")).row()


def test_narrower_gradients_shrink_only_the_communication():
    loaded = load_cluster("dlu_64_edr")
    timing = network_timing(loaded.arch, loaded.network, loaded.spec.device.batch)
    results = {}
    for bits in (32, 16, 8):
        spec = dataclasses.replace(loaded.spec, gradients=dataclasses.replace(loaded.spec.gradients, bits=bits))
        results[bits] = run_cluster(dataclasses.replace(loaded, spec=spec), techniques=Techniques(), timing=timing)
    assert results[32].compute_s == results[16].compute_s == results[8].compute_s
    assert results[32].reduce_busy_s > results[16].reduce_busy_s > results[8].reduce_busy_s
    assert results[32].step_s > results[16].step_s > results[8].step_s
