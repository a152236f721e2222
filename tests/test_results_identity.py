"""Every shipped arch config on a few cheap shipped workloads gives the stored results: summary
counters and per-layer cycles (or the same refusal). The snapshot is
``tests/data/results_identity.json``, written by ``tools/results_snapshot.py`` (it records its
commit); a change meant to move a result rewrites it and says why."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("results_snapshot", ROOT / "tools" / "results_snapshot.py")
results_snapshot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(results_snapshot)
STORED = json.loads(results_snapshot.SNAPSHOT.read_text())


def test_the_snapshot_covers_every_shipped_arch():
    archs = {pair.split(" x ")[0] for pair in STORED["pairs"]}
    assert archs == set(results_snapshot.shipped_archs())
    assert tuple(STORED["workloads"]) == results_snapshot.WORKLOADS


@pytest.mark.parametrize("arch", results_snapshot.shipped_archs())
def test_results_are_the_stored_ones(arch):
    for workload in results_snapshot.WORKLOADS:
        pair = f"{arch} x {workload}"
        assert results_snapshot.pair_summary(arch, workload) == STORED["pairs"][pair], pair
