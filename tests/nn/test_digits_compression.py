"""Issue 3's digits classifier: float32 >= 95 %, pruning to 10 % (retrained), 4-bit weight sharing."""
from accel_sim.systems.nn.training import Schedule
from accel_sim.studies.digits_compression import digits_compression_table


def test_digits_compression_steps():
    frame = digits_compression_table(Schedule(epochs=12), retrain_epochs=5)
    assert list(frame.columns) == ["step", "density", "weight_bits", "test_accuracy"]
    acc = dict(zip(frame["step"], frame["test_accuracy"]))
    assert acc["float32"] >= 0.95
    assert abs(frame["density"].iloc[1] - 0.10) < 1e-3 and list(frame["weight_bits"]) == [32, 32, 32, 4]
    assert acc["pruned+retrained"] > acc["pruned"]        # retraining recovers what pruning lost
    assert acc["pruned+retrained+kmeans16"] >= acc["pruned+retrained"] - 0.02
    assert acc["pruned+retrained+kmeans16"] >= 0.9
