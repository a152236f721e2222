"""Gradual pruning of the digits networks (Zhu & Gupta's cubic schedule) and the pruning-granularity study."""
import numpy as np
import pytest

from accel_sim.studies.pruning_granularity import accuracy_points, speed_points
from accel_sim.systems.nn.gradual_pruning import cubic_density, layer_mask
from accel_sim.systems.nn.lowbit.layers import GemmLayer, Quantizers
from accel_sim.systems.nn.lowbit.quantizer import GradientQuantizer, InputQuantizer, WeightQuantizer


def test_cubic_schedule_starts_dense_ends_at_target_and_prunes_fastest_early():
    densities = [cubic_density(t, 12, 0.25) for t in range(0, 15)]
    assert densities[0] == 1.0 and densities[12] == densities[14] == pytest.approx(0.25)
    steps = -np.diff(densities[:13])
    assert (steps > 0).all() and (np.diff(steps) < 0).all()
    assert cubic_density(6, 12, 0.25) == pytest.approx(0.25 + 0.75 * 0.5 ** 3)   # Zhu & Gupta Eq. 1


def test_conv_masks_follow_the_im2col_layout():
    rng = np.random.default_rng(0)
    layer = GemmLayer(3 * 3 * 4, 8, Quantizers(WeightQuantizer(), InputQuantizer(), GradientQuantizer()), rng,
                      kernel=3)
    kernels = layer_mask(layer, "kernel", 0.25).reshape(3, 3, 4, 8)   # rows are (R, S, C)
    per_kernel = kernels.sum(axis=(0, 1))
    assert set(per_kernel.ravel().tolist()) == {0, 9} and (per_kernel == 9).sum() == 8
    channels = layer_mask(layer, "channel", 0.5).reshape(3, 3, 4, 8).all(axis=(0, 1, 3))
    assert channels.sum() == 2


def test_finer_grains_keep_accuracy_and_filter_pruning_is_faster_on_dense_hardware():
    accuracy = accuracy_points(("mlp",), ("unstructured", "channel"), (0.25,), prune_epochs=1, fine_tune_epochs=1)
    at = accuracy.set_index("granularity").test_accuracy
    assert at["unstructured"] > at["channel"] and (accuracy.kept_density <= 1.0).all()
    speed = speed_points(("tpu_like_128x128_ws", "ampere_a100_dense"), ("unstructured", "filter"), (0.5,))
    half = speed[speed.density == 0.5].set_index(["subject", "granularity"]).speedup
    assert half[("tpu_like_128x128_ws", "unstructured")] == 1.0
    assert half[("tpu_like_128x128_ws", "filter")] == pytest.approx(1.5, rel=0.01)   # 2 of 3 layers halve
    assert half[("ampere_a100_dense", "filter")] > 1.2
