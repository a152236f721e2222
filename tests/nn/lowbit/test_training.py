"""Low-bit training on the digits: issue 16's accuracy bars (the study's MLP schedule), determinism,
and bad input (one line, exit 2)."""
from dataclasses import replace

import numpy as np
import pytest

from accel_sim.cli.main import main
from accel_sim.foundations.errors import InputError
from accel_sim.systems.nn.digits import load_digits_split
from accel_sim.systems.nn.lowbit.methods import LowBitConfig, check_config, config_from_mapping
from accel_sim.systems.nn.lowbit.train import LOWBIT_SCHEDULE, train_lowbit


@pytest.fixture(scope="module")
def fp32_accuracy():
    return train_lowbit(load_digits_split(), LowBitConfig("fp32")).test_accuracy


@pytest.mark.parametrize("method", ["bnn", "xnor-net"])
def test_binary_mlps_reach_90_percent(method):
    assert train_lowbit(load_digits_split(), LowBitConfig(method)).test_accuracy >= 0.90


@pytest.mark.parametrize("config, bar_points", [
    (LowBitConfig("twn"), 2.0),
    (LowBitConfig("ttq"), 2.0),
    (LowBitConfig("dorefa", weight_bits=4, activation_bits=4), 2.0),
    (LowBitConfig("inq", weight_bits=5), 1.0),
])
def test_ternary_4_bit_and_inq_stay_close_to_float32(config, bar_points, fp32_accuracy):
    run = train_lowbit(load_digits_split(), config)
    assert 100 * (fp32_accuracy - run.test_accuracy) <= bar_points


def test_inq_ends_with_every_quantized_weight_a_power_of_two_or_zero():
    run = train_lowbit(load_digits_split(), LowBitConfig("inq", full_precision_ends=False),
                       replace(LOWBIT_SCHEDULE, epochs=1), inq_stage_epochs=1)
    for gemm in run.network.gemms:
        w = gemm.weights[gemm.weights != 0]
        assert gemm.q.weights.frozen.all()
        assert np.array_equal(np.exp2(np.rint(np.log2(np.abs(w)))), np.abs(w))
        assert len(np.unique(np.abs(w))) <= 8                              # 5 bits: 8 exponents per sign


def test_same_seed_same_result_bit_for_bit_with_random_methods():
    short = replace(LOWBIT_SCHEDULE, epochs=2)
    data = load_digits_split()
    for config in (LowBitConfig("binaryconnect-stochastic"),
                   LowBitConfig("dorefa", weight_bits=2, activation_bits=2, gradient_bits=4, network="cnn")):
        a, b = train_lowbit(data, config, short), train_lowbit(data, config, short)
        assert a.losses == b.losses and a.test_accuracy == b.test_accuracy
        assert all(np.array_equal(p, q) for p, q in zip(a.network.parameters(), b.network.parameters()))


def test_full_precision_ends_keep_first_and_last_weights_float():
    run = train_lowbit(load_digits_split(), LowBitConfig("bnn"), replace(LOWBIT_SCHEDULE, epochs=0))
    first, middle, last = run.network.gemms
    assert first.q.weights.method == "fp32" and last.q.weights.method == "fp32" and last.q.inputs.method == "fp32"
    assert middle.q.weights.method == "binaryconnect" and middle.q.inputs.method == "bnn"
    assert first.q.inputs.method == "fp32"                                 # the pixels are never quantized


@pytest.mark.parametrize("values, fragment", [
    ({"method": "dorefa", "weight_bits": 0}, "weight_bits: DoReFa weight bits must be an integer in 1 .. 32, got 0"),
    ({"method": "inq", "partition": [0.5, 0.75, 0.9]}, "partition: INQ partition: the portions must sum to 1"),
    ({"method": "inq", "partition": [0.5, 0.25, 1.0]}, "strictly increasing"),
    ({"method": "xnor"}, "method: unknown method 'xnor'; expected one of"),
    ({"method": "fp32", "depth": 3}, "depth: unknown key"),
])
def test_bad_config_is_an_input_error_naming_the_field(values, fragment):
    with pytest.raises(InputError, match="low-bit training config") as error:
        config_from_mapping(values)
    assert fragment in str(error.value)


def test_training_validates_its_config():
    with pytest.raises(InputError, match="DoReFa gradient bits"):
        train_lowbit(load_digits_split(), LowBitConfig("dorefa", gradient_bits=0))
    assert check_config(LowBitConfig("log", log_base="sqrt2")).log_base == "sqrt2"


@pytest.mark.parametrize("argv, message", [
    (["--method", "dorefa", "--weight-bits", "0"], "accel-sim train: --weight-bits: DoReFa weight bits must be"),
    (["--method", "inq", "--partition", "0.5,0.75,0.9"], "accel-sim train: --partition: INQ partition: the portions "
                                                         "must sum to 1"),
    (["--method", "inq", "--partition", "half,1"], "--partition: expected comma-separated fractions"),
    (["--method", "nope"], "accel-sim train: --method: unknown method 'nope'"),
])
def test_cli_bad_input_is_one_line_and_exit_2(argv, message, capsys):
    assert main(["train", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_cli_trains_and_prints_both_accuracies(capsys):
    assert main(["train", "--method", "twn", "--epochs", "1"]) == 0
    out = capsys.readouterr().out
    assert "twn on the digits mlp" in out and "float32" in out and "test accuracy" in out


def test_skipping_the_per_epoch_accuracy_changes_nothing_the_training_computes():
    short = replace(LOWBIT_SCHEDULE, epochs=2)
    data = load_digits_split()
    config = LowBitConfig("dorefa", weight_bits=2, activation_bits=2, gradient_bits=4)   # random draws each step
    tracked, untracked = train_lowbit(data, config, short), train_lowbit(data, config, short, per_epoch_accuracy=False)
    assert len(tracked.test_accuracy_per_epoch) == 2 and untracked.test_accuracy_per_epoch == []
    assert tracked.losses == untracked.losses and tracked.test_accuracy == untracked.test_accuracy
    assert all(p.tobytes() == q.tobytes() for p, q in zip(tracked.network.parameters(), untracked.network.parameters()))


@pytest.mark.parametrize("network", ["mlp", "cnn"])
def test_inq_after_a_float32_run_starts_from_it_and_gets_the_same_bits(network, monkeypatch):
    from accel_sim.systems.nn.lowbit import train
    short = replace(LOWBIT_SCHEDULE, epochs=2, hidden=(32,))
    data = load_digits_split()
    monkeypatch.setattr(train, "_FLOAT32_TRAININGS", {})
    alone = train_lowbit(data, LowBitConfig("inq", network=network), short, inq_stage_epochs=1)
    train._FLOAT32_TRAININGS.clear()
    train_lowbit(data, LowBitConfig("fp32", network=network), short)
    assert len(train._FLOAT32_TRAININGS) == 1
    reused = train_lowbit(data, LowBitConfig("inq", network=network), short, inq_stage_epochs=1)
    assert alone.losses == reused.losses and alone.test_accuracy_per_epoch == reused.test_accuracy_per_epoch
    assert all(p.tobytes() == q.tobytes() for p, q in zip(alone.network.parameters(), reused.network.parameters()))
    assert all(a.running_var.tobytes() == b.running_var.tobytes() for a, b in zip(alone.network.layers, reused.network.layers)
               if hasattr(a, "running_var"))
