"""A cluster device at a measured speed (``device.measured``): the measured whole-network forward and
backward times, linear in the batch, split over the layers in the simulated proportions; bad values are
one line with exit 2."""
import pytest

from accel_sim.systems.cluster.run import device_timing, run_cluster
from accel_sim.systems.cluster.spec import load_cluster
from accel_sim.systems.training.timing import network_timing
from tests.cli.cli_helpers import assert_one_line_error, run_cli

CONFIG = "gpu2016_64_edr"


def test_measured_totals_scale_with_the_batch_and_keep_the_simulated_split():
    loaded = load_cluster(CONFIG)
    measured, batch = loaded.spec.device.measured, loaded.spec.device.batch
    timing = device_timing(loaded)
    simulated = network_timing(loaded.arch, loaded.network, batch)
    assert sum(t.forward_s for t in timing.layers) == pytest.approx(measured.forward * batch / measured.batch)
    assert sum(t.backward_s for t in timing.layers) == pytest.approx(measured.backward * batch / measured.batch)
    forward_scale = timing.layers[0].forward_s / simulated.layers[0].forward_s
    backward_scale = timing.layers[-1].backward_s / simulated.layers[-1].backward_s
    for scaled, own in zip(timing.layers, simulated.layers):
        assert scaled.forward_s == pytest.approx(own.forward_s * forward_scale)
        assert scaled.input_error_s == pytest.approx(own.input_error_s * backward_scale)
        assert scaled.weight_gradient_s == pytest.approx(own.weight_gradient_s * backward_scale)
        # energy and work stay the simulated ones
        assert (scaled.forward_energy_pj, scaled.backward_energy_pj, scaled.macs, scaled.weights) == \
            (own.forward_energy_pj, own.backward_energy_pj, own.macs, own.weights)


def test_measured_compute_is_linear_in_the_batch():
    small = run_cluster(load_cluster(CONFIG, {"device.batch": 16}), devices=1)
    large = run_cluster(load_cluster(CONFIG, {"device.batch": 64}), devices=1)
    assert large.compute_s == pytest.approx(4 * small.compute_s)
    assert small.compute_s == pytest.approx((0.027 + 0.053) * 16 / 128)


def test_without_a_measurement_the_device_is_simulated():
    loaded = load_cluster("dlu_64_edr")
    assert loaded.spec.device.measured is None
    assert device_timing(loaded) == network_timing(loaded.arch, loaded.network, loaded.spec.device.batch)


@pytest.mark.parametrize("override, field, expected", [
    ("device.measured.batch=0", "device.measured.batch", "expected a value > 0, got 0"),
    ("device.measured.forward=0 ms", "device.measured.forward", "expected a value > 0"),
    ("workload=tiny_conv", "device.measured.workload", "the measured times are of alexnet_dense, the cluster "
                                                       "trains tiny_conv"),
])
def test_bad_measurement_is_one_line_exit_2(capsys, override, field, expected):
    line = assert_one_line_error(run_cli(capsys, "cluster", CONFIG, "--set", override, "--set",
                                         "gradients.bucket=32 KiB"), f": {field}: ", expected)
    assert "gpu2016_64_edr.yaml" in line
