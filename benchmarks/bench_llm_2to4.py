"""Llama-2-7B decode with 2:4 weights against dense: import + run, whole processes, in one run.

Bar: ``accel-sim import-hf ... --weights 2:4`` then ``accel-sim run`` on the tensor core takes at most
3x the wall time of the same two commands for the dense model, and no process of the 2:4 pair
peaks above 2 GB resident. (Before the tensor-core plan stopped drawing generated N:M weights just
to check them, the 2:4 run alone took about 10 minutes and 1.5 GB: it built every one of the 7 B
weights.) Each command runs as its own Python process, exactly as a user types it (the CLI's
``main`` with that argv, this checkout on ``sys.path``); its wall time is measured around the
process and its peak RSS read from ``wait4``'s resource usage. The dense and 2:4 pairs run one
after the other, ``--repeat`` times each (alternating), and the best time of each command is kept
(the machine may be shared). Prints a table and the ratio; exit 1 if a bar is missed. Run:

    python benchmarks/bench_llm_2to4.py [--arch ampere_a100] [--context 2048] [--batch 1] [--repeat 2]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "workloads" / "llm" / "configs" / "llama_2_7b.json"
RATIO_BAR = 3.0
RSS_BAR_BYTES = 2 * 1024 ** 3


def _cli(argv: list[str]) -> tuple[float, int, str]:
    """(wall seconds, peak RSS bytes, stdout) of one ``accel-sim ARGV`` process."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from accel_sim.cli.main import main; "
            "sys.argv = ['accel-sim'] + sys.argv[2:]; main()")
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", code, str(REPO), *argv], stdout=out, stderr=err,
                                env={**os.environ, "PYTHONPATH": str(REPO)})
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage (ru_maxrss in KiB on Linux)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        text = out.read()
        if proc.returncode != 0:
            raise SystemExit(f"accel-sim {' '.join(argv)} failed ({proc.returncode}):\n{err.read()}")
    return seconds, usage.ru_maxrss * 1024, text


def _pair(weights: str, arch: str, context: int, batch: int, out_dir: Path) -> dict:
    folder = out_dir / weights.replace(":", "_")
    import_s, import_rss, _ = _cli(["import-hf", str(CONFIG), "--phase", "decode", "--context", str(context),
                                    "--batch", str(batch), "--weights", weights, "--out", str(folder), "--force"])
    workload = next(folder.glob("*.yaml"))
    run_s, run_rss, out = _cli(["run", "--arch", arch, "--workload", str(workload)])
    total = next(line for line in out.splitlines() if line.startswith("total:"))
    return {"import_s": import_s, "run_s": run_s, "rss": max(import_rss, run_rss), "total": total}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="ampere_a100")
    parser.add_argument("--context", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    best: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            for weights in ("dense", "2:4"):
                got = _pair(weights, args.arch, args.context, args.batch, Path(tmp))
                if weights in best:  # best time per command, worst memory
                    got = {"import_s": min(got["import_s"], best[weights]["import_s"]),
                           "run_s": min(got["run_s"], best[weights]["run_s"]),
                           "rss": max(got["rss"], best[weights]["rss"]), "total": got["total"]}
                best[weights] = got
    print(f"Llama-2-7B decode, context {args.context}, batch {args.batch}, on {args.arch} "
          f"(best of {args.repeat}, wall seconds of whole processes)")
    print(f"{'weights':>8} {'import_s':>9} {'run_s':>7} {'total_s':>8} {'peak_rss_MB':>12}")
    for weights, r in best.items():
        print(f"{weights:>8} {r['import_s']:>9.2f} {r['run_s']:>7.2f} {r['import_s'] + r['run_s']:>8.2f} "
              f"{r['rss'] / 2 ** 20:>12.0f}   {r['total']}")
    dense_s = best["dense"]["import_s"] + best["dense"]["run_s"]
    sparse_s = best["2:4"]["import_s"] + best["2:4"]["run_s"]
    ratio = sparse_s / dense_s
    ok_ratio, ok_rss = ratio <= RATIO_BAR, best["2:4"]["rss"] < RSS_BAR_BYTES
    print(f"2:4 / dense (import + run): {ratio:.2f}x (bar <= {RATIO_BAR:g}x: {'met' if ok_ratio else 'MISSED'}); "
          f"2:4 peak RSS {best['2:4']['rss'] / 2 ** 20:.0f} MB (bar < 2048 MB: {'met' if ok_rss else 'MISSED'})")
    return 0 if ok_ratio and ok_rss else 1


if __name__ == "__main__":
    sys.exit(main())
