"""Batch norm's compiled training loops (numba) give the numpy lines' outputs, running statistics and gradients bit
for bit: fully connected and NHWC batches, shift-based scales, magnitudes over many octaves, signed zeros."""
import numpy as np
import pytest

from accel_sim.systems.nn.lowbit import batch_norm_kernel
from accel_sim.systems.nn.lowbit.layers import BatchNorm

pytest.importorskip("numba")


@pytest.mark.parametrize("trial", range(8))
def test_compiled_batch_norm_equals_numpy(trial, monkeypatch):
    shape = [(64, 300), (17, 10), (64, 8, 8, 16), (5, 4, 4, 32)][trial % 4]
    shift = trial >= 4
    layers = [BatchNorm(shape[-1], shift_based=shift) for _ in range(2)]
    outputs = []
    for index, layer in enumerate(layers):
        if index == 1:
            monkeypatch.setattr(batch_norm_kernel, "compiled", lambda: None)
        steps = np.random.default_rng(trial + 100)
        results = []
        for _ in range(3):
            x = (steps.standard_normal(shape) * 10.0 ** steps.integers(-4, 5)).astype(np.float32)
            x.flat[:2] = [0.0, -0.0]
            grad = (steps.standard_normal(shape) * 10.0 ** steps.integers(-6, 1)).astype(np.float32)
            y = layer.forward(x, True)
            gx = layer.backward(grad)
            results += [y, gx, *layer.gradients(), layer.running_mean, layer.running_var, *layer._cache]
            layer.set_parameters([layer.gamma + 0.1 * steps.standard_normal(shape[-1]).astype(np.float32),
                                  layer.beta + np.float32(0.01)])
        results.append(layer.forward(x, False))
        outputs.append(results)
    for ours, theirs in zip(*outputs):
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape and ours.tobytes() == theirs.tobytes()
