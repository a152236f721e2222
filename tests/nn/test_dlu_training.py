"""The dynamic fixed-point unit (statistics + settings + update step) and training on the DLU."""
import numpy as np
import pytest

from accel_sim import load_arch
from accel_sim.foundations.compress.quantization.leading_bit_statistics import PointRange
from accel_sim.systems.nn.digits import load_digits_split
from accel_sim.systems.nn.dlu_training import step_cost, train_on_dlu
from accel_sim.systems.nn.dynamic_fixed_point import DynamicFixedPointUnit, UnitSettings
from accel_sim.systems.nn.mlp import MLP
from accel_sim.systems.nn.training import Schedule, train


def test_quantize_puts_values_on_the_grid_and_counts_saturation():
    unit = DynamicFixedPointUnit(UnitSettings(bits=8, initial_point=4, rerun_threshold=-1))
    x = np.array([0.03, -1.0, 7.9, 100.0, -100.0])
    q = unit.quantize("t", x)
    assert np.array_equal(q * 16, np.round(q * 16))                  # multiples of 2^-4
    assert q.tolist() == [0.0, -1.0, 7.875, 127 / 16, -8.0]     # 0.03 x 16 = 0.48 rounds to 0
    record = unit.tensors["t"]
    assert record.saturated == 2 and record.elements == 5 and unit.overflow_rate == 2 / 5
    assert unit.results_observed == 5


def test_update_step_moves_the_point_with_the_rule():
    unit = DynamicFixedPointUnit(UnitSettings(bits=8, rule="overflow", initial_point=4, rerun_threshold=-1))
    x = np.full(100, 20.0)                                          # needs 6 integer bits: f <= 2
    for _ in range(4):
        unit.quantize("t", x)
        unit.end_step()
    assert unit.tensors["t"].points == [4, 3, 2, 2]                 # one bit per step, then it fits
    assert unit.readouts == 4


def test_rerun_when_the_histogram_disagrees_by_more_than_the_threshold():
    unit = DynamicFixedPointUnit(UnitSettings(bits=8, initial_point=2, rerun_threshold=2))
    unit.quantize("z", np.array([0.001, -0.002]), from_gemm=True)
    record = unit.tensors["z"]
    # at f = 2 every result rounds to 0 or -1: the histogram only says "below the LSB", so the
    # point moves by a whole word (top bucket -1 -> bits - 2 = 6: +7) and the layer is re-run
    assert record.reruns == 1 and record.fraction_bits == 2 + 7
    q = unit.quantize("z", np.array([0.0011, -0.0021]), from_gemm=True)
    assert record.reruns == 2 and record.fraction_bits == 9 + 6      # now the top position is 0: +6
    assert q.tolist() == [36 / 2**15, -69 / 2**15]
    unit.quantize("z", np.array([0.0012, -0.0019]), from_gemm=True)
    assert record.reruns == 2                                          # close enough: no re-run


def test_static_point_is_set_once_and_never_moves():
    unit = DynamicFixedPointUnit(UnitSettings(bits=8, rule="max", static=True))
    unit.quantize("t", np.array([0.5, -0.25]))
    unit.end_step()
    unit.quantize("t", np.array([50.0]))
    unit.end_step()
    points = unit.tensors["t"].points
    assert points[0] == points[1] and unit.tensors["t"].saturated == 1


def test_stochastic_rounding_is_seeded_and_unbiased():
    settings = UnitSettings(bits=8, initial_point=4, rounding="stochastic", rerun_threshold=-1)
    x = np.full(20000, 1 / 64)                                        # a quarter of an LSB
    a = DynamicFixedPointUnit(settings, seed=3).quantize("t", x)
    b = DynamicFixedPointUnit(settings, seed=3).quantize("t", x)
    assert np.array_equal(a, b)
    assert a.mean() == pytest.approx(1 / 64, rel=0.05)
    nearest = DynamicFixedPointUnit(UnitSettings(bits=8, initial_point=4, rerun_threshold=-1)).quantize("t", x)
    assert not nearest.any()


def test_narrow_does_not_touch_the_statistics():
    unit = DynamicFixedPointUnit(UnitSettings(bits=8))
    unit.narrow("t", np.ones(5))
    assert unit.results_observed == 0 and "t" not in unit.tensors


@pytest.mark.parametrize("kwargs, message", [
    ({"bits": 1}, "bits must be an integer in 2"),
    ({"bits": 8, "initial_point": 8}, "outside the 8-bit word"),
    ({"bits": 8, "initial_point": -1}, "outside the 8-bit word"),
    ({"bits": 8, "rule": "median"}, "unknown point update rule 'median'"),
    ({"bits": 8, "rounding": "up"}, "unknown rounding"),
    ({"bits": 8, "initial_point": 6, "point_range": PointRange(-4, 5)}, "outside the point register range"),
])
def test_bad_unit_settings(kwargs, message):
    with pytest.raises(ValueError, match=message):
        UnitSettings(**kwargs)


def test_training_on_the_dlu_meets_the_accuracy_bars_on_a_short_schedule():
    schedule = Schedule(epochs=6)
    data = load_digits_split()
    float32 = train(data, schedule).test_accuracy
    dfp16 = train_on_dlu(load_arch("dlu", {"dlu.data_type": "int16"}), data, schedule)
    dfp8 = train_on_dlu(load_arch("dlu", {"dlu.data_type": "int8", "dlu.rounding": "stochastic"}), data, schedule)
    static8 = train_on_dlu(load_arch("dlu", {"dlu.data_type": "int8", "dlu.rounding": "stochastic",
                                             "dlu.update_rule": "max"}), data, schedule, static=True)
    assert dfp16.run.test_accuracy >= float32 - 0.005
    assert dfp8.run.test_accuracy >= float32 - 0.03
    assert static8.run.test_accuracy < dfp8.run.test_accuracy - 0.05
    assert static8.overflow_rate > dfp8.overflow_rate
    assert dfp8.step.cycles < dfp16.step.cycles and dfp8.step.energy_pj < dfp16.step.energy_pj


def test_step_cost_counts_every_gemm_and_charges_reruns():
    arch = load_arch("dlu")
    model = MLP((64, 300, 100, 10))
    base = step_cost(arch, model, 64)
    assert base.macs == 3 * 64 * (64 * 300 + 300 * 100 + 100 * 10) - 64 * 64 * 300   # no input gradient
    rerun = step_cost(arch, model, 64, {"z1": 1.0})
    assert rerun.cycles > base.cycles and rerun.energy_pj > base.energy_pj
    fp32 = step_cost(load_arch("dlu", {"dlu.data_type": "fp32"}), model, 64)
    assert fp32.cycles > base.cycles and fp32.compute_energy_pj > base.compute_energy_pj


def test_training_refuses_types_it_cannot_train_in():
    with pytest.raises(ValueError, match="training runs in fp32, int16, int8, int4"):
        train_on_dlu(load_arch("dlu", {"dlu.data_type": "binary"}), load_digits_split(), Schedule(epochs=0))


def test_dynamic_fixed_point_training_is_deterministic():
    arch = load_arch("dlu", {"dlu.data_type": "int8", "dlu.rounding": "stochastic"})
    first, second = (train_on_dlu(arch, load_digits_split(), Schedule(epochs=1)) for _ in range(2))
    assert first.run.losses == second.run.losses
    assert first.unit.tensors["da2"].points == second.unit.tensors["da2"].points
    assert first.step == second.step


def test_final_accuracy_only_trains_the_same_bits():
    arch = load_arch("dlu", {"dlu.data_type": "int8", "dlu.rounding": "stochastic"})
    short = Schedule(epochs=2)
    every = train_on_dlu(arch, load_digits_split(), short)
    last = train_on_dlu(arch, load_digits_split(), short, per_epoch_accuracy=False)
    assert len(every.run.test_accuracy_per_epoch) == 2 and len(last.run.test_accuracy_per_epoch) == 1
    assert every.run.test_accuracy == last.run.test_accuracy and every.run.losses == last.run.losses
    assert all(a.tobytes() == b.tobytes() for a, b in zip(every.run.model.weights, last.run.model.weights))
    assert every.overflow_rate == last.overflow_rate
