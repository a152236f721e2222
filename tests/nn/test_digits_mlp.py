"""The numpy digits classifier: data split, gradients, determinism, accuracy bar, optional extra."""
import builtins

import numpy as np
import pytest

from accel_sim.systems.nn import digits as digits_module
from accel_sim.systems.nn.digits import load_digits_split
from accel_sim.systems.nn.mlp import MLP
from accel_sim.systems.nn.number_format import Float32
from accel_sim.systems.nn.optim import Optimizer
from accel_sim.systems.nn.training import Schedule, accuracy, train


def test_split_is_fixed_stratified_and_scaled():
    data = load_digits_split()
    assert data.x_train.shape == (1257, 64) and data.x_test.shape == (540, 64)
    assert data.x_train.dtype == np.float32 and 0 <= data.x_train.min() and data.x_train.max() <= 1
    assert np.bincount(data.y_test).min() >= 50  # every class in the test split
    again = load_digits_split.__wrapped__()
    assert np.array_equal(again.x_test, data.x_test) and np.array_equal(again.y_train, data.y_train)


def test_backward_matches_finite_differences():
    rng = np.random.default_rng(0)
    model = MLP((5, 7, 3), seed=1)
    x, y = rng.random((4, 5)).astype(np.float32), np.array([0, 2, 1, 2])
    fmt = Float32()
    grads_w, grads_b, loss = model.backward(model.forward(x, fmt), y, fmt)
    for layer, (i, j) in ((0, (2, 3)), (1, (6, 1)), (0, (4, 0))):
        w = model.weights[layer]
        original = float(w[i, j])
        step = 1e-2
        w[i, j] = original + step
        up = model.backward(model.forward(x, fmt), y, fmt)[2]
        w[i, j] = original - step
        down = model.backward(model.forward(x, fmt), y, fmt)[2]
        w[i, j] = original
        assert grads_w[layer][i, j] == pytest.approx((up - down) / (2 * step), rel=2e-2, abs=1e-4)
    assert loss > 0 and grads_b[1].shape == (3,)


def test_float32_training_is_deterministic_and_reaches_95_percent():
    data = load_digits_split()
    first, second = train(data), train(data)
    assert first.losses == second.losses
    assert first.test_accuracy >= 0.95
    assert first.test_accuracy == accuracy(first.model, data.x_test, data.y_test)
    assert first.losses[-1] < first.losses[0] / 5


def test_adam_trains_too():
    run = train(load_digits_split(), Schedule(epochs=3, optimizer="adam", learning_rate=1e-3))
    assert run.test_accuracy > 0.9


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="unknown optimizer 'rmsprop'"):
        Optimizer(MLP((4, 2)), "rmsprop", 0.1)
    with pytest.raises(ValueError, match="learning_rate"):
        Optimizer(MLP((4, 2)), "sgd", 0.0)
    with pytest.raises(ValueError, match="layer sizes"):
        MLP((4,))


def test_missing_scikit_learn_names_the_extra(monkeypatch):
    real_import = builtins.__import__

    def no_sklearn(name, *args, **kwargs):
        if name.startswith("sklearn"):
            raise ImportError("No module named 'sklearn'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_sklearn)
    with pytest.raises(ImportError, match=r"pip install -e .\.\[digits\]. \(from the clone.s folder\)"):
        digits_module.load_digits_split.__wrapped__(0.25, 7)
