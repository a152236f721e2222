"""A Llama-2-7B decode step (context 2048, batch 1, FP16 / BF16, one A100 40 GB) in accel_sim and in two
analytical LLM tools from the package index, side by side in one run: each a fresh process (imports
included) and, inside it, the call alone (after its imports).

- accel_sim: ``simulate(load_arch("ampere_a100"), transformer_network(<llama_2_7b.json>, decode 2048 x 1))``
  (289 matrix and 225 vector layers, kernel by kernel).
- llm-analysis 0.2.2 (cli99/llm-analysis): ``llm_analysis.analysis.infer(model_name=
  "NousResearch_Llama-2-7b-hf", gpu_name="a100-sxm-40gb", seq_len=2048, num_tokens_to_generate=1)``.
- GenZ (genz-llm 0.0.16, abhibambhaniya/GenZ-LLM-Analyzer): ``decode_moddeling(model="llama2_7b",
  batch_size=1, input_tokens=2048, system_name="A100_40GB_GPU", bits="bf16")``.

The peers live in their own virtual environment (``--venv``, default ``/work/llm-peers``; made with
``python -m venv /work/llm-peers && /work/llm-peers/bin/pip install llm-analysis genz-llm``); a peer that
is missing is reported and skipped. Printed: whole-process wall and CPU seconds (medians of ``--repeat``),
the call alone (CPU), and each peer's time over accel_sim's. The answers differ (the peers are
roofline models with efficiency factors); this compares only the cost of asking. Run:

    python benchmarks/bench_llm_peers.py [--repeat 3] [--venv /work/llm-peers]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from child_process import timed_run

ROOT = Path(__file__).resolve().parents[1]
ACCEL_SIM = f"""
import time
start = time.process_time()
from accel_sim import load_arch, simulate
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
imported = time.process_time()
simulate(load_arch("ampere_a100"), transformer_network(read_hf_config({str(ROOT / "workloads/llm/configs/llama_2_7b.json")!r}),
                                                       InferenceStep("decode", 2048, 1)))
print(time.process_time() - imported)
"""
LLM_ANALYSIS = """
import time, logging
from llm_analysis.analysis import infer
imported = time.process_time()
infer(model_name="NousResearch_Llama-2-7b-hf", gpu_name="a100-sxm-40gb", seq_len=2048, num_tokens_to_generate=1,
      batch_size_per_gpu=1, log_level="ERROR")
print(time.process_time() - imported)
"""
GENZ = """
import time, warnings
warnings.simplefilter("ignore")
from GenZ.LLM_inference.llm_decode import decode_moddeling
imported = time.process_time()
decode_moddeling(model="llama2_7b", batch_size=1, input_tokens=2048, system_name="A100_40GB_GPU", bits="bf16")
print(time.process_time() - imported)
"""


def timed(python: str, code: str) -> tuple[float, float, float] | None:
    """Whole-process wall and CPU seconds and the call's CPU seconds (printed by the child); None if it failed."""
    wall, cpu, done = timed_run([python, "-c", code], capture_output=True, text=True, cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode:
        print(f"  failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
        return None
    return wall, cpu, float(done.stdout.split()[-1])


def medians(python: str, code: str, repeat: int) -> tuple[float, float, float] | None:
    runs = [timed(python, code) for _ in range(repeat)]
    if any(r is None for r in runs):
        return None
    return tuple(statistics.median(r[i] for r in runs) for i in range(3))  # type: ignore[return-value]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--venv", type=Path, default=Path("/work/llm-peers"))
    args = parser.parse_args()
    peer_python = str(args.venv / "bin" / "python")
    ours = medians(sys.executable, ACCEL_SIM, args.repeat)
    assert ours is not None
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(f"accel_sim     whole process {ours[0]:.2f} s wall, {ours[1]:.2f} s CPU; the call {ours[2]:.3f} s CPU")
    for name, code in (("llm-analysis", LLM_ANALYSIS), ("GenZ", GENZ)):
        if not Path(peer_python).exists():
            print(f"{name:13s} skipped: no virtual environment at {args.venv} (see the module doc)")
            continue
        theirs = medians(peer_python, code, args.repeat)
        if theirs is None:
            continue
        print(f"{name:13s} whole process {theirs[0]:.2f} s wall, {theirs[1]:.2f} s CPU; the call {theirs[2]:.3f} s "
              f"CPU; its whole process / accel_sim's: {theirs[1] / ours[1]:.2f}x CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
