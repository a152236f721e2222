"""The result store: round trip, keys, skipping what is stored, exports, derived metrics."""
import sqlite3

import pandas as pd
import pytest
from sweep_fakes import SMALL_SWEEP, area_point, fake_point

from accel_sim import __version__
from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.sweep import ResultStore, load_results, run_sweep, sweep_from_mapping
from accel_sim.pipeline.sweep.keys import point_key, workload_hash
from accel_sim.pipeline.sweep.store import PointOutcome, exclusive_run


@pytest.fixture()
def small():
    return sweep_from_mapping(SMALL_SWEEP)


def test_key_depends_on_config_workload_and_version(small):
    p = small.points[0]
    digest = workload_hash(small.network)
    assert p.key == point_key(p.arch, digest, __version__)
    assert len({point_key(p.arch, digest, v) for v in ("0.1.0", "0.1.1")}) == 2
    assert point_key(p.arch, digest, __version__) != point_key(p.arch, "0" * 64, __version__)
    assert point_key(p.arch, digest, __version__) != point_key(small.points[1].arch, digest, __version__)


def test_store_round_trip_is_exact(tmp_path, small):
    summaries = {p.key: {"cycles": 1000 + p.index, "energy_pj": 0.1 + p.index / 3, "macs_dense": 7}
                 for p in small.points}
    with ResultStore(tmp_path / "results.sqlite") as store:
        store.write_definition(small, "test:fn")
        for p in reversed(small.points):   # commit order does not matter
            assert store.put(PointOutcome(p.index, p.key, summaries[p.key], 0.5, 42), "run-1")
        assert not store.put(PointOutcome(0, small.points[0].key, {"cycles": 0}, 0.5, 42), "run-2")  # first kept
    frame = load_results(tmp_path, provenance=True)
    assert list(frame["point"]) == list(range(12))
    assert [frame["energy_pj"][i] for i in range(12)] == [0.1 + i / 3 for i in range(12)]   # bit for bit
    assert frame["cycles"].tolist() == [1000 + i for i in range(12)]
    assert (frame["run_id"] == "run-1").all() and (frame["pid"] == 42).all()
    assert list(frame.columns[:6]) == ["point", "array", "systolic.rows", "systolic.cols", "systolic.dataflow",
                                       "systolic.ifmap_sram.size"]
    assert frame["array"].tolist()[:2] == ["8/8", "8/8"] and frame["systolic.ifmap_sram.size"][1] == 65536
    assert frame["array"].cat.ordered and list(frame["array"].cat.categories) == ["8/8", "16/16"]
    assert (frame["edp_pj_cycles"] == frame["energy_pj"] * frame["cycles"]).all()
    assert frame.attrs["axes"] == ["array", "systolic.dataflow", "systolic.ifmap_sram.size"]
    assert list(frame.columns[-4:]) == ["key", "run_id", "pid", "elapsed_s"]
    assert "run_id" not in load_results(tmp_path / "results.sqlite").columns


def test_rerun_skips_stored_points_and_exports(tmp_path, small):
    first = run_sweep(small, tmp_path, evaluate=fake_point)
    assert (first.points, first.configs, first.computed, first.already_stored) == (12, 12, 12, 0)
    second = run_sweep(small, tmp_path, evaluate=fake_point)
    assert (second.computed, second.already_stored) == (0, 12)
    frame = load_results(tmp_path)
    csv = pd.read_csv(first.csv)
    pd.testing.assert_frame_equal(csv, frame, check_exact=True, check_dtype=False, check_categorical=False)
    with ResultStore(first.store) as store:
        runs = store.runs()
    assert runs["planned"].tolist() == [12, 0] and runs["computed"].tolist() == [12, 0]


def test_a_grown_sweep_computes_only_the_new_points(tmp_path):
    small = sweep_from_mapping(SMALL_SWEEP)
    run_sweep(small, tmp_path, evaluate=fake_point)
    axes = dict(SMALL_SWEEP["axes"])
    axes["systolic.ifmap_sram.size"] = ["16 KiB", "64 KiB", "256 KiB"]
    grown = dict(SMALL_SWEEP, axes=axes)
    summary = run_sweep(sweep_from_mapping(grown), tmp_path, evaluate=fake_point)
    assert (summary.points, summary.computed, summary.already_stored) == (18, 6, 12)
    assert len(load_results(tmp_path)) == 18


def test_duplicate_points_are_computed_once(tmp_path):
    raw = {k: v for k, v in SMALL_SWEEP.items() if k != "axes"}
    raw["points"] = [{"systolic.rows": 8}, {"systolic.rows": 8}, {"systolic.rows": 4}]
    summary = run_sweep(sweep_from_mapping(raw), tmp_path, evaluate=fake_point)
    assert (summary.points, summary.configs, summary.computed) == (3, 2, 2)
    frame = load_results(tmp_path)
    assert frame["point"].tolist() == [0, 1, 2] and frame["key"][0] == frame["key"][1]


def test_area_metric_only_when_area_is_known(tmp_path, small):
    raw = dict(SMALL_SWEEP, metrics=["edp", "throughput_per_area"])
    run_sweep(sweep_from_mapping(raw), tmp_path / "no_area", evaluate=fake_point)
    assert "throughput_macs_per_cycle_mm2" not in load_results(tmp_path / "no_area").columns
    run_sweep(sweep_from_mapping(raw), tmp_path / "area", evaluate=area_point)
    frame = load_results(tmp_path / "area")
    expected = frame["macs_dense"] / frame["cycles"] / frame["area_mm2"]
    assert (frame["throughput_macs_per_cycle_mm2"] == expected).all()


def test_store_refuses_results_of_another_evaluator(tmp_path, small):
    run_sweep(small, tmp_path, evaluate=fake_point)
    with pytest.raises(InputError, match="evaluator sweep_fakes:fake_point"):
        run_sweep(small, tmp_path, evaluate=area_point)


def test_missing_store_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no sweep result store"):
        load_results(tmp_path)


def test_store_is_wal_and_keys_are_unique(tmp_path, small):
    run_sweep(small, tmp_path, evaluate=fake_point)
    db = sqlite3.connect(tmp_path / "results.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT COUNT(*), COUNT(DISTINCT key) FROM results").fetchone() == (12, 12)


def test_a_second_concurrent_run_on_one_folder_is_refused(tmp_path, small):
    with exclusive_run(tmp_path):
        with pytest.raises(InputError, match=r"another sweep run \(pid \d+\) is writing to this folder"):
            run_sweep(small, tmp_path, evaluate=fake_point)
    assert run_sweep(small, tmp_path, evaluate=fake_point).computed == 12   # released afterwards
