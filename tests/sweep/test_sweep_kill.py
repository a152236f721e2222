"""The kill test: SIGKILL a running sweep, restart it; no finished point lost, none recomputed."""
import os
import signal
import sqlite3
import subprocess
import sys
import time

import psutil
import yaml
from sweep_fakes import REPO

from accel_sim.pipeline.sweep import ResultStore, load_results

KILL_SWEEP = {
    "name": "kill",
    "arch": "scalesim_32x32_ws",
    "workload": "tiny_conv",
    "axes": {
        "array": [{"systolic.rows": n, "systolic.cols": n} for n in (4, 8)],
        "systolic.dataflow": ["os", "ws", "is"],
        "systolic.ifmap_sram.size": ["1 KiB", "16 KiB", "64 KiB"],
    },
}
TOTAL = 18
KILL_AFTER = 3          # stored points seen before the SIGKILL
TIMEOUT_S = 60


def stored(store):
    """{key: (summary, run_id, pid)} of every committed point (readable while a sweep writes)."""
    if not store.exists():
        return {}
    db = sqlite3.connect(store, timeout=10)
    try:
        return {key: (summary, run_id, pid)
                for key, summary, run_id, pid in db.execute("SELECT key, summary, run_id, pid FROM results")}
    except sqlite3.OperationalError:   # tables not created yet
        return {}
    finally:
        db.close()


def test_sigkill_then_restart_loses_nothing_and_recomputes_nothing(tmp_path):
    sweep_file = tmp_path / "kill.yaml"
    sweep_file.write_text(yaml.safe_dump(KILL_SWEEP, sort_keys=False))
    out = tmp_path / "out"
    store = out / "results.sqlite"
    command = [sys.executable, "-m", "accel_sim", "sweep", str(sweep_file), "--out", str(out), "--jobs", "2",
               "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}

    first = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + TIMEOUT_S
    while len(stored(store)) < KILL_AFTER:
        assert first.poll() is None, f"the sweep ended before it could be killed: {first.communicate()}"
        assert time.monotonic() < deadline, "no point stored in time"
        time.sleep(0.02)
    workers = psutil.Process(first.pid).children(recursive=True)
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    _, alive = psutil.wait_procs(workers, timeout=10)
    assert not alive, f"pool processes outlived the killed sweep: {alive}"

    before = stored(store)
    assert KILL_AFTER <= len(before) < TOTAL, "kill landed too late to test a restart"
    (killed_run,) = {run_id for _, run_id, _ in before.values()}

    second = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert second.returncode == 0, second.stderr
    missing = TOTAL - len(before)
    assert f"{TOTAL} points ({TOTAL} distinct configs), {missing} computed, {len(before)} already stored" \
        in second.stdout

    after = stored(store)
    frame = load_results(out)
    assert frame["point"].tolist() == list(range(TOTAL)) and set(frame["key"]) == set(after)   # every point once
    assert {key: after[key] for key in before} == before          # finished points untouched (same run, same data)
    new = {key for key, (_, run_id, _) in after.items() if run_id != killed_run}
    assert new == set(after) - set(before) and len(new) == missing   # the restart computed exactly the missing ones
    with ResultStore(store) as db:
        runs = db.runs()
    assert runs["run_id"].tolist()[0] == killed_run and runs["finished_at"].isna().tolist() == [True, False]
    assert runs["planned"].tolist() == [TOTAL, missing] and runs["computed"].iloc[1] == missing
