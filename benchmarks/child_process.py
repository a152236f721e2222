"""One fresh child process, timed: its wall seconds and its CPU seconds (user + system, from ``getrusage`` of
the children, so a shared machine's other jobs do not count), for the whole-process benchmarks."""
from __future__ import annotations

import resource
import subprocess
import time


def timed_run(command: list[str], **run_options) -> tuple[float, float, subprocess.CompletedProcess]:
    """Run ``command`` (``subprocess.run``'s options) and return its wall and CPU seconds and the finished process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, **run_options)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done
