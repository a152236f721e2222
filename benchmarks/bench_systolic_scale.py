"""Scale bars of the systolic model (issue 22 item 1): big GEMMs in both bandwidth modes, and
how much faster the fast path is than the SimPy reference. Run:

    python benchmarks/bench_systolic_scale.py [--repeat N] [--skip-big]

- USER bandwidth, a 4096^3 GEMM on the 32 x 32 array (``scalesim_32x32_ws``): < 60 CPU-s, < 1 GB;
- CALC bandwidth, an 8192^3 GEMM on the 128 x 128 array (``tpu_like_128x128_ws``): < 5 CPU-s, < 500 MB;
- fast / reference >= 100x on the benchmark layers: ResNet-18 on the 128 x 128 CALC array (the
  systolic pair of ``bench_families.py`` and ``bench_systolic.py``) and a 512^3 GEMM on the
  32 x 32 USER array; the USER pair of ``bench_families.py`` (tiny_conv, convolutions whose ifmap
  holds an address several times, scanned over the whole group) is printed without a bar, and so is
  ResNet-18 on the 128 x 128 CALC array with 64 KiB read buffers (operands overflow them: the fast
  path scans the demand streams of the convolution ifmaps, O(N log N) in the requests, against a
  reference that is O(N) in numpy plus a Python step per DRAM read).

Each figure comes from a fresh process running only the plan and the fast path (or the
reference): CPU seconds (``time.process_time``) and the process's peak resident set
(``getrusage``, imports included). Both paths of a ratio are timed in the same process, on the
same plans; the fast path's time is the best of ``--repeat`` passes, the reference's one pass.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KIB_PER_MB = 1024  # getrusage reports kilobytes on Linux
BIG = (  # (what, arch config, GEMM size, CPU-s bar, MB bar)
    ("USER 4096^3 GEMM, 32x32", "scalesim_32x32_ws", 4096, 60.0, 1024),
    ("CALC 8192^3 GEMM, 128x128", "tpu_like_128x128_ws", 8192, 5.0, 500),
)
RATIO = (  # (what, arch config, workload or GEMM size, bar or None, read buffers in KiB or 0: the config's)
    ("ResNet-18, 128x128 CALC", "tpu_like_128x128_ws", "resnet18", 100.0, 0),
    ("512^3 GEMM, 32x32 USER", "scalesim_32x32_ws", 512, 100.0, 0),
    ("tiny_conv, 32x32 USER", "scalesim_32x32_ws", "tiny_conv", None, 0),
    ("ResNet-18, 128x128 CALC 64K", "tpu_like_128x128_ws", "resnet18", None, 64),
)
CHILD = """
import dataclasses, json, resource, sys, time
from accel_sim import load_arch, load_workload
from accel_sim.models.systolic.fast import fast
from accel_sim.models.systolic.plan import plan
from accel_sim.models.systolic.reference import reference
from accel_sim.models.systolic.spec import BufferSpec
from accel_sim.foundations.workload.layer import GemmLayer
arch, what, repeat, with_reference = load_arch(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
read_kib = int(sys.argv[5])
if read_kib:
    arch = dataclasses.replace(arch, systolic=dataclasses.replace(
        arch.systolic, ifmap_sram=BufferSpec(read_kib * 1024), filter_sram=BufferSpec(read_kib * 1024)))
layers = ([GemmLayer("gemm", m=int(what), k=int(what), n=int(what))] if what.isdigit()
          else list(load_workload(what).layers))
best = None
for _ in range(repeat):
    start = time.process_time()
    counters = [fast(plan(arch, layer)) for layer in layers]
    spent = time.process_time() - start
    best = spent if best is None else min(best, spent)
out = {"fast_s": best, "cycles": sum(c.cycles for c in counters)}
if with_reference:
    start = time.process_time()
    slow = [reference(plan(arch, layer)) for layer in layers]
    out["reference_s"] = time.process_time() - start
    out["identical"] = slow == counters
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def run_child(arch: str, what: str | int, repeat: int, with_reference: bool, read_kib: int = 0) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, arch, str(what), str(repeat), "1" if with_reference else "0",
                           str(read_kib)],
                          cwd=ROOT, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    if done.returncode:
        raise SystemExit(f"{arch} x {what} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="passes of the fast path in the ratio runs (best kept)")
    parser.add_argument("--skip-big", action="store_true", help="only the fast / reference ratios")
    args = parser.parse_args(argv)
    ok = True
    if not args.skip_big:
        for what, arch, size, seconds_bar, mb_bar in BIG:
            got = run_child(arch, size, 1, False)
            passed = got["fast_s"] < seconds_bar and got["peak_mb"] < mb_bar
            ok &= passed
            print(f"{what:28s} {got['fast_s']:8.2f} CPU-s (bar {seconds_bar:g})  peak RSS {got['peak_mb']:7.0f} MB "
                  f"(bar {mb_bar})  {got['cycles']:,} cycles  {'PASS' if passed else 'FAIL'}", flush=True)
    for what, arch, workload, bar, read_kib in RATIO:
        got = run_child(arch, workload, args.repeat, True, read_kib)
        ratio = got["reference_s"] / got["fast_s"]
        passed = got["identical"] and (bar is None or ratio >= bar)
        ok &= passed
        verdict = "PASS" if passed else "FAIL"
        print(f"{what:28s} fast {got['fast_s']:8.4f} s  reference {got['reference_s']:8.3f} s  ratio {ratio:7.0f}x "
              f"(bar {bar if bar is not None else 'none'})  counters identical: {got['identical']}  {verdict}",
              flush=True)
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
