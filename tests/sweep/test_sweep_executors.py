"""Serial, process pool and Dask give the same results bit for bit; a dead scheduler fails fast."""
import socket
import subprocess
import sys
import time

import pandas as pd
import pytest
from sweep_fakes import REPO, SMALL_SWEEP, fake_point

from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.sweep import load_results, run_sweep, sweep_from_mapping
from accel_sim.pipeline.sweep.executor import TARGET_CHUNK_S, Chunker, PointFailed, PointTask
from accel_sim.pipeline.sweep.store import PointOutcome


def run_and_load(sweep, out, **how):
    summary = run_sweep(sweep, out, **how)
    assert summary.computed == summary.configs
    return load_results(out), summary.csv.read_bytes()


def test_fake_points_identical_serial_pool_chunked_and_dask(tmp_path, dask_scheduler):
    sweep = sweep_from_mapping(SMALL_SWEEP)
    serial, serial_csv = run_and_load(sweep, tmp_path / "serial", evaluate=fake_point)
    for name, how in {"pool": {"jobs": 2}, "chunked": {"jobs": 2, "chunk_size": 5},
                      "dask": {"scheduler": dask_scheduler}}.items():
        frame, csv = run_and_load(sweep, tmp_path / name, evaluate=fake_point, **how)
        pd.testing.assert_frame_equal(frame, serial, check_exact=True)
        assert csv == serial_csv, name


def test_simulator_identical_serial_jobs2_and_dask(tmp_path, dask_scheduler):
    sweep = sweep_from_mapping(SMALL_SWEEP)
    serial, serial_csv = run_and_load(sweep, tmp_path / "serial")
    assert {"cycles", "energy_pj", "edp_pj_cycles", "throughput_macs_per_cycle"} <= set(serial.columns)
    assert serial["cycles"].nunique() > 1 and serial["energy_pj"].nunique() > 1
    pool, pool_csv = run_and_load(sweep, tmp_path / "pool", jobs=2)
    dask, dask_csv = run_and_load(sweep, tmp_path / "dask", scheduler=dask_scheduler)
    pd.testing.assert_frame_equal(pool, serial, check_exact=True)
    pd.testing.assert_frame_equal(dask, serial, check_exact=True)
    assert serial_csv == pool_csv == dask_csv


def test_unreachable_scheduler_fails_within_10_s(tmp_path):
    # timed in-process: a subprocess's interpreter start-up and imports are not the scheduler's wait
    start = time.monotonic()
    with pytest.raises(InputError, match="cannot reach a Dask scheduler"):
        run_sweep(sweep_from_mapping(SMALL_SWEEP), tmp_path / "in_process", scheduler="tcp://127.0.0.1:9",
                  evaluate=fake_point)
    assert time.monotonic() - start < 10
    proc = subprocess.run([sys.executable, "-m", "accel_sim", "sweep", str(REPO / "sweeps" / "systolic_small.yaml"),
                           "--out", str(tmp_path / "cli"), "--scheduler", "tcp://127.0.0.1:9"],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("accel-sim: error: --scheduler: tcp://127.0.0.1:9: cannot reach a Dask scheduler "
                                  "(Connection refused)"), proc.stderr


def test_port_that_does_not_speak_dask_fails_within_10_s(tmp_path):
    """A listening socket that never answers the Dask handshake (a hung or foreign server)."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        start = time.monotonic()
        with pytest.raises(InputError, match="no Dask handshake within 5 s"):
            run_sweep(sweep_from_mapping(SMALL_SWEEP), tmp_path, scheduler=address, evaluate=fake_point)
        assert time.monotonic() - start < 10


def test_malformed_scheduler_address_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="not a scheduler address"):
        run_sweep(sweep_from_mapping(SMALL_SWEEP), tmp_path, scheduler="nonsense://x", evaluate=fake_point)


def test_bad_jobs_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="--jobs: 0: expected a number of worker processes >= 1"):
        run_sweep(sweep_from_mapping(SMALL_SWEEP), tmp_path, jobs=0)


def explode(arch, network):
    if arch.systolic.rows == 16:
        raise ValueError("boom")
    return fake_point(arch, network)


def test_a_failing_point_stops_the_sweep_and_keeps_finished_points(tmp_path):
    with pytest.raises(PointFailed, match=r"point 6 .*ValueError: boom"):
        run_sweep(sweep_from_mapping(SMALL_SWEEP), tmp_path, evaluate=explode)
    assert load_results(tmp_path)["point"].tolist() == [0, 1, 2, 3, 4, 5]


def outcome(seconds):
    return PointOutcome(0, "k", {}, seconds, 1)


def test_chunks_follow_the_measured_point_cost_and_cover_every_task_in_order():
    tasks = [PointTask(i, str(i), {}) for i in range(300)]
    chunker = Chunker(tasks)
    sizes, drawn = [], []
    for chunk in chunker:
        sizes.append(len(chunk))
        drawn.extend(chunk)
        if len(sizes) == 3:
            chunker.record([outcome(TARGET_CHUNK_S / 10)] * 3)   # cheap points: ten per chunk
        if len(sizes) == 6:
            chunker.record([outcome(TARGET_CHUNK_S * 100)])      # now expensive: one per chunk
    assert drawn == tasks
    assert sizes[:3] == [1, 1, 1] and sizes[3:6] == [10, 10, 10] and set(sizes[6:-1]) == {1}
    assert {len(c) for c in Chunker(tasks, chunk_size=7)} == {7, 6}


def test_progress_line_on_stderr(tmp_path, capsys):
    run_sweep(sweep_from_mapping(SMALL_SWEEP), tmp_path, evaluate=fake_point, progress=sys.stderr)
    err = capsys.readouterr().err
    assert "sweep small: 12/12 points (100%)" in err and "points/s" in err and "ETA 0:00:00" in err


def test_progress_line_sizes_the_store_from_the_points_already_in_it(tmp_path, capsys):
    """The store's size now and at the end, extrapolated from the bytes the computed points added (measured)."""
    from accel_sim.pipeline.sweep.runner import store_size_estimate
    run_sweep(sweep_from_mapping(SMALL_SWEEP), tmp_path, evaluate=fake_point, progress=sys.stderr)
    assert ", store " in capsys.readouterr().err
    store = tmp_path / "grow.bin"
    store.write_bytes(b"x" * 1000)
    line = store_size_estimate(store, todo=10)
    assert line(0) == ", store 0.0 MB"
    store.write_bytes(b"x" * (1000 + 2 * 500_000))        # two points added 1 MB
    assert line(2) == ", store 1.0 MB, about 5.0 MB when done"
