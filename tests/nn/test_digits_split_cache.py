"""The digits split: the shipped row indices are scikit-learn's train_test_split's, and the split read without
importing scikit-learn equals the one it makes, byte for byte. Other splits: within a shared operand folder
(``reproduce all``) made once and read back by later processes; outside it nothing is written."""
import numpy as np

from accel_sim.foundations.workload.operand_cache import shared_operands
from accel_sim.systems.nn import digits


def _arrays(data):
    return [data.x_train, data.y_train, data.x_test, data.y_test]


def _same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_the_shipped_split_is_scikit_learns():
    shipped = digits._shipped_split()
    assert shipped is not None
    made = digits._split(digits.TEST_FRACTION, digits.SPLIT_SEED)
    assert all(_same(shipped[name], made[name]) for name in made)
    digits.load_digits_split.cache_clear()
    loaded = _arrays(digits.load_digits_split())
    assert all(_same(a, made[name]) for a, name in zip(loaded, ("x_train", "y_train", "x_test", "y_test")))
    assert not loaded[0].flags.writeable


def test_another_split_goes_through_the_shared_folder_unchanged(tmp_path, monkeypatch):
    fraction = 0.25
    direct = _arrays(digits.load_digits_split(fraction))
    digits.load_digits_split.cache_clear()
    with shared_operands(tmp_path):
        made = _arrays(digits.load_digits_split(fraction))
        assert len([p for p in tmp_path.glob("digits_split_*") if p.is_dir()]) == 1   # one folder of arrays
        digits.load_digits_split.cache_clear()
        monkeypatch.setattr(digits, "_split", lambda *args: (_ for _ in ()).throw(AssertionError("made again")))
        read = _arrays(digits.load_digits_split(fraction))
    digits.load_digits_split.cache_clear()
    assert all(_same(a, b) and _same(a, c) and not c.flags.writeable for a, b, c in zip(direct, made, read))
    monkeypatch.undo()
    digits.load_digits_split(fraction)
    assert len(list(tmp_path.glob("*"))) == 1
