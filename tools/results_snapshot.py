"""Snapshot of every shipped arch config on a few cheap shipped workloads: the network's summary
counters and each layer's cycles, or the refusal message. ``tests/test_results_identity.py``
holds the code to the stored snapshot, so a change that moves any shipped result shows up.

    python tools/results_snapshot.py            # rewrite tests/data/results_identity.json

The stored file was made at commit 1ac4a49 (branch speed/misc, issue 22) and checked equal, pair
for pair, to the summary frames of 50a07bf, before that branch's changes. Rewrite it only when
a result is meant to change, and say why in the commit (the file records
the commit it was made at). Hash columns (``weight_hash``, ``input_hash``) are left out: they
name the data, they are not counters. ``benchmarks/results_identity.py`` does the same over
every pair, per layer, for a change's before / after.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "tests" / "data" / "results_identity.json"
WORKLOADS = ("tiny_conv", "lenet5", "lenet_300_100", "eie_4pe_example")
NOT_COUNTERS = ("arch", "workload", "weight_hash", "input_hash")


def shipped_archs() -> list[str]:
    return sorted(p.stem for p in (ROOT / "arch_configs").glob("*.yaml"))


def pair_summary(arch: str, workload: str) -> dict[str, object]:
    from accel_sim import InputError, load_arch, load_workload, simulate
    try:
        run = simulate(load_arch(arch), load_workload(workload))
    except (InputError, ValueError) as err:
        return {"error": str(err).splitlines()[0]}
    plain = {k: (float(v) if isinstance(v, float) else int(v) if not isinstance(v, str) else v)
             for k, v in run.summary_row().items() if k not in NOT_COUNTERS}
    return {"summary": plain, "layer_cycles": [result.cycles for result in run.layers]}


def snapshot() -> dict[str, dict[str, object]]:
    return {f"{arch} x {workload}": pair_summary(arch, workload) for arch in shipped_archs() for workload in WORKLOADS}


def main() -> int:
    sys.path.insert(0, str(ROOT))
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    data = {"made_at_commit": commit, "workloads": list(WORKLOADS), "pairs": snapshot()}
    SNAPSHOT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {SNAPSHOT} ({len(data['pairs'])} pairs, commit {commit})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
