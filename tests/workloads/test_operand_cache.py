"""Generated operands shared through a folder (``accel_sim.foundations.workload.operand_cache``): a process that
finds a tensor there reads the very bits the first one generated, and nothing is written outside
the block."""
from __future__ import annotations

import numpy as np
import pytest

import accel_sim.foundations.workload.operand_cache as operand_cache
import accel_sim.foundations.workload.operands as operands
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer
from accel_sim.foundations.workload.operand_cache import shared_operands, through_cache
from accel_sim.foundations.workload.operands import _cached_operands, layer_operands


@pytest.fixture
def small_tensors_cached(monkeypatch):
    monkeypatch.setattr(operand_cache, "MIN_ELEMENTS", 1)
    _cached_operands.cache_clear()
    yield
    _cached_operands.cache_clear()


def _layers():
    return (ConvLayer("c", in_h=9, in_w=7, in_channels=8, out_channels=16, kernel_h=3, kernel_w=3, pad_top=1,
                      pad_bottom=1, pad_left=1, pad_right=1, weight_density=0.2, input_density=0.9),
            GemmLayer("g", m=5, k=24, n=12, weight_density=0.7, input_density=0.1))


def test_a_second_process_reads_the_bits_the_first_generated(tmp_path, monkeypatch, small_tensors_cached):
    fresh = [(layer_operands(layer).weights.copy(), layer_operands(layer).inputs.copy()) for layer in _layers()]
    _cached_operands.cache_clear()
    with shared_operands(tmp_path):
        written = [(layer_operands(layer).weights, layer_operands(layer).inputs) for layer in _layers()]
        assert len(_entries(tmp_path)) == 4   # sparse (density 0.2, 0.1) and dense (0.9, 0.7) folders
        _cached_operands.cache_clear()   # as another process: nothing in memory, generation forbidden
        monkeypatch.setattr(operands, "_generated_weights", lambda *a: pytest.fail("weights generated again"))
        monkeypatch.setattr(operands, "synthetic_activations", lambda *a, **k: pytest.fail("inputs generated again"))
        read = [(layer_operands(layer).weights, layer_operands(layer).inputs) for layer in _layers()]
    for tensors in (written, read):
        for (w, x), (w0, x0) in zip(tensors, fresh):
            for got, expected in ((w, w0), (x, x0)):
                assert got.dtype == expected.dtype and got.shape == expected.shape
                assert got.tobytes() == expected.tobytes()
                assert not got.flags.writeable


def test_bit_patterns_survive_including_negative_zero(tmp_path):
    array = np.zeros((4, 300), dtype=np.float32)
    array[0, :5] = [-0.0, 1.5, -2.25, np.float32(1e-30), -0.0]
    operand_cache._write(tmp_path / "sparse", array)
    operand_cache._write(tmp_path / "dense", np.ones((3, 3), dtype=np.float32))
    back = operand_cache._read(tmp_path / "sparse")
    assert back.tobytes() == array.tobytes() and back.dtype == np.float32
    assert np.signbit(back[0, 0]) and np.signbit(back[0, 4])
    assert operand_cache._read(tmp_path / "dense").tobytes() == np.ones((3, 3), dtype=np.float32).tobytes()


def test_outside_the_block_or_below_the_size_nothing_is_written(tmp_path):
    made = []
    assert through_cache("k", (2048, 1024), lambda: made.append(1) or np.ones(3)).size == 3
    with shared_operands(tmp_path):
        through_cache("small", (10,), lambda: np.ones(10, dtype=np.float32))
    assert made == [1] and not list(tmp_path.iterdir())
    assert operand_cache._folder is None


def test_reading_only_reads_what_another_process_wrote_and_writes_nothing(tmp_path):
    # a study whose tensors no other study reads (@study(writes_operands=False)): it still reads the folder
    with shared_operands(tmp_path):
        through_cache("written before", (1 << 18,), lambda: np.full(1 << 18, 2.0, dtype=np.float32))
        operand_cache.forget()   # as another process
        with operand_cache.reading_only():
            read = through_cache("written before", (1 << 18,), lambda: pytest.fail("made again"))
            made = through_cache("made here", (1 << 18,), lambda: np.ones(1 << 18, dtype=np.float32))
        assert operand_cache._writing
    assert read.tobytes() == np.full(1 << 18, 2.0, dtype=np.float32).tobytes() and made.sum() == 1 << 18
    assert [path.name for path in _entries(tmp_path)] == ["written before"]


def test_an_unreadable_entry_is_made_again(tmp_path, small_tensors_cached):
    (tmp_path / "a_file").write_bytes(b"not a folder of arrays")
    (tmp_path / "empty").mkdir()
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "dense.npy").write_bytes(b"not an array")
    with shared_operands(tmp_path):
        for key in ("a_file", "empty", "broken"):
            got = through_cache(key, (4,), lambda: np.arange(4, dtype=np.float32))
            assert got.tobytes() == np.arange(4, dtype=np.float32).tobytes()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]   # a failed rename leaves nothing


def _entries(folder):
    """The arrays' folders the cache wrote (a partial write is renamed into place or removed)."""
    return [path for path in folder.iterdir() if path.is_dir() and not path.name.endswith(".partial")]


def test_non_zeros_read_back_without_the_tensor(tmp_path, monkeypatch, small_tensors_cached):
    # A magnitude-pruned layer's non-zeros go through the folder as positions and values: a process that
    # reads them (or the tensor) after another wrote them gets the same bits, without generating again.
    layer = GemmLayer("sparse", m=3, k=64, n=48, weight_density=0.1, input_density=0.5)
    index0, values0 = (array.copy() for array in layer_operands(layer).weight_nonzeros)
    weights0 = layer_operands(layer).weights.copy()
    for first, folder in (("weight_nonzeros", tmp_path / "a"), ("weights", tmp_path / "b")):
        folder.mkdir()
        _cached_operands.cache_clear()
        with shared_operands(folder):
            getattr(layer_operands(layer), first)   # the first process writes the file
        assert len(_entries(folder)) == 1
        _read_back(folder, layer, index0, values0, weights0, monkeypatch)


def _read_back(folder, layer, index0, values0, weights0, monkeypatch):
    with shared_operands(folder), monkeypatch.context() as patch:
        patch.setattr(operands, "_pruned_nonzeros", lambda *a: pytest.fail("non-zeros generated again"))
        patch.setattr(operands, "_generated_weights", lambda *a: pytest.fail("weights generated again"))
        for read in ("weight_nonzeros", "weights"):
            _cached_operands.cache_clear()
            got = getattr(layer_operands(layer), read)
            if read == "weights":
                assert got.tobytes() == weights0.tobytes()
            else:
                assert got[0].dtype == index0.dtype and np.array_equal(got[0], index0)
                assert got[1].tobytes() == values0.tobytes()
