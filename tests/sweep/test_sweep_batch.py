"""Simulate points run together in batches (``simulate_many``): the same results as one by one, bit for bit;
a refused point is still named; a batch never leaves a worker idle."""
import pandas as pd
import pytest
from sweep_fakes import SMALL_SWEEP, fake_point

from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.sweep import load_results, run_sweep, simulate_point, sweep_from_mapping
from accel_sim.pipeline.sweep.executor import DEFAULT_BATCH, Chunker, PointTask
from accel_sim.pipeline.sweep.runner import batch_size


def test_batched_points_equal_points_run_alone_bit_for_bit(tmp_path):
    sweep = sweep_from_mapping(SMALL_SWEEP)
    frames, csvs = {}, {}
    for batch in (1, 5, None):
        summary = run_sweep(sweep, tmp_path / str(batch), batch=batch)
        assert summary.computed == summary.configs == 12
        frames[batch], csvs[batch] = load_results(tmp_path / str(batch)), summary.csv.read_bytes()
    pd.testing.assert_frame_equal(frames[5], frames[1], check_exact=True)
    pd.testing.assert_frame_equal(frames[None], frames[1], check_exact=True)
    assert csvs[1] == csvs[5] == csvs[None]


def test_a_refused_point_in_a_batch_is_named_and_earlier_batches_are_kept(tmp_path):
    sweep = sweep_from_mapping({"name": "refused", "arch": "scalesim_32x32_ws", "workload": "tiny_conv",
                                "axes": {"systolic.dataflow": ["os", "ws", "is"],
                                         "systolic.rows": [8, 16, 1_000_000_000_000]}})
    with pytest.raises(InputError, match=r"point 2 \(systolic.dataflow=os, systolic.rows=1000000000000\).*"
                                         r"refused before allocating"):
        run_sweep(sweep, tmp_path, batch=2)
    assert load_results(tmp_path)["point"].tolist() == [0, 1]   # the first batch was committed


def test_batch_size_defaults_and_keeps_every_worker_busy():
    assert batch_size(None, simulate_point, 100, 1) == DEFAULT_BATCH
    assert batch_size(None, fake_point, 100, 1) == 1            # other point functions run point by point
    assert batch_size(None, simulate_point, 6, 2) == 3          # two workers, three points each
    assert batch_size(4, simulate_point, 100, 2) == 4 and batch_size(1, simulate_point, 100, 2) == 1
    tasks = [PointTask(i, str(i), {}) for i in range(10)]
    assert [len(c) for c in Chunker(tasks, batch=4)] == [4, 4, 2]


def test_bad_batch_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="--batch: 0: expected a number of points >= 1"):
        run_sweep(sweep_from_mapping(SMALL_SWEEP), tmp_path, batch=0)
