"""Within a shared operand folder (``reproduce all``) the digits split is made once and read back by later
processes (without scikit-learn's import): the same arrays, byte for byte; outside it nothing is written."""
import numpy as np

from accel_sim.foundations.workload.operand_cache import shared_operands
from accel_sim.systems.nn import digits


def _arrays(data):
    return [data.x_train, data.y_train, data.x_test, data.y_test]


def test_the_split_goes_through_the_shared_folder_unchanged(tmp_path, monkeypatch):
    digits.load_digits_split.cache_clear()
    direct = _arrays(digits.load_digits_split())
    digits.load_digits_split.cache_clear()
    with shared_operands(tmp_path):
        made = _arrays(digits.load_digits_split())
        assert len(list(tmp_path.glob("digits_split_*.npz"))) == 1
        digits.load_digits_split.cache_clear()
        monkeypatch.setattr(digits, "_split", lambda *args: (_ for _ in ()).throw(AssertionError("made again")))
        read = _arrays(digits.load_digits_split())
    digits.load_digits_split.cache_clear()
    for a, b, c in zip(direct, made, read):
        assert a.dtype == b.dtype == c.dtype and a.shape == b.shape == c.shape
        assert a.tobytes() == b.tobytes() == c.tobytes() and not c.flags.writeable
    monkeypatch.undo()
    digits.load_digits_split.cache_clear()
    assert len(list(tmp_path.glob("*"))) == 1
