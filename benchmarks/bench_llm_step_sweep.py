"""LLM steps, whole process: one Llama-2-7B decode step from the command line, and a sweep of 16 batch
sizes x 4 contexts from Python (the step on ``ampere_a100``, the sweep on ``ampere_a100_80gb``, whose 80 GB hold batch 16 at context 4096; FP16, fast path).

Bars: the command ``accel-sim run --arch ampere_a100 --workload <decode ctx 2048, batch 1>`` under
0.6 s whole process (wall, median of ``--repeat`` fresh processes: imports, loading, simulation, report
files and figure); the sweep, run in one fresh process (``transformer_network`` then ``simulate`` per
point, as docs/llm.md shows), under 5 s whole process. Same-shape layers (the 32 transformer blocks, the
projections shared by every context at one batch) are counted once per process
(``accel_sim.foundations.contract.SHAPE_COUNTS``). CPU seconds of the child are printed beside wall
seconds (the machine may be shared). Run:

    python benchmarks/bench_llm_step_sweep.py [--repeat 5]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from child_process import timed_run

ROOT = Path(__file__).resolve().parents[1]
HF_CONFIG = ROOT / "workloads" / "llm" / "configs" / "llama_2_7b.json"
STEP_BAR_S = 0.6
SWEEP_BAR_S = 5.0
BATCHES = tuple(range(1, 17))
CONTEXTS = (512, 1024, 2048, 4096)
SWEEP = f"""
from accel_sim import load_arch, simulate
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
arch = load_arch("ampere_a100_80gb")  # batch 16 at context 4096 needs 48 GB
model = read_hf_config({str(HF_CONFIG)!r})
for batch in {BATCHES!r}:
    for context in {CONTEXTS!r}:
        simulate(arch, transformer_network(model, InferenceStep("decode", context, batch)))
"""


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one fresh child process."""
    wall, cpu, _ = timed_run(command, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return wall, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "accel_sim", "import-hf", str(HF_CONFIG), "--phase", "decode",
                        "--context", "2048", "--batch", "1", "--out", f"{tmp}/wl"], check=True,
                       stdout=subprocess.DEVNULL, cwd=ROOT)
        workload = next(Path(tmp, "wl").glob("*.yaml"))
        steps = [timed([sys.executable, "-m", "accel_sim", "run", "--arch", "ampere_a100", "--workload",
                        str(workload), "--out", f"{tmp}/run{i}"]) for i in range(args.repeat)]
        sweep = timed([sys.executable, "-c", SWEEP])
    wall = statistics.median(w for w, _ in steps)
    cpu = statistics.median(c for _, c in steps)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"Llama-2-7B decode step (ctx 2048, batch 1), accel-sim run, whole process: {wall:.2f} s wall, "
          f"{cpu:.2f} s CPU (median of {args.repeat}); bar < {STEP_BAR_S} s: {'met' if wall < STEP_BAR_S else 'missed'}")
    print(f"sweep of {len(BATCHES)} batches x {len(CONTEXTS)} contexts (one process): {sweep[0]:.2f} s wall, "
          f"{sweep[1]:.2f} s CPU; bar < {SWEEP_BAR_S} s: {'met' if sweep[0] < SWEEP_BAR_S else 'missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
