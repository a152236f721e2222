"""Bars of issue 7: the whole ``dfp-training`` study under 3 minutes, and its accuracy bars.

Runs the study exactly as ``accel-sim reproduce dfp-training --out DIR`` does (full schedule,
every row) into a temporary folder, and prints the measured figures next to each bar:

- wall time of the whole study < 180 s;
- 16-bit dynamic fixed point within 0.5 points of float32 (every rule);
- 8-bit dynamic fixed point within 3 points of float32 (every rule);
- static 8-bit point worse than dynamic 8-bit (same rule);
- compute energy per MAC at 16 / 8 bit vs FP32 (``precision-energy``; Fujitsu: about 1/2, 1/4).

    python benchmarks/bench_dfp_training.py
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

from accel_sim.studies.precision_energy import precision_energy_table  # noqa: E402
from accel_sim.studies.registry import all_studies, write_study  # noqa: E402

WALL_BAR_S = 180.0
GAP16_BAR, GAP8_BAR = 0.005, 0.03
RULES = ("overflow", "max", "percentile")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> int:
    study = all_studies()["dfp-training"]
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        output = write_study(study, Path(folder) / "dfp-training")
        wall = time.perf_counter() - start
    frame = output.results.set_index(["format", "rule"])
    f32 = frame.loc[("float32", "-"), "test_accuracy"]
    gap16 = max(f32 - frame.loc[("dfp16", r), "test_accuracy"] for r in RULES)
    gap8 = max(f32 - frame.loc[("dfp8", r), "test_accuracy"] for r in RULES)
    static, dynamic = frame.loc[("static8", "max"), "test_accuracy"], frame.loc[("dfp8", "max"), "test_accuracy"]
    print(output.results.to_string(index=False))
    print()
    checks = [
        (f"whole dfp-training study: {wall:.1f} s", f"< {WALL_BAR_S:.0f} s", wall < WALL_BAR_S),
        (f"16-bit DFP worst gap to float32: {100 * gap16:.2f} points", "<= 0.5", gap16 <= GAP16_BAR),
        (f"8-bit DFP worst gap to float32: {100 * gap8:.2f} points", "<= 3", gap8 <= GAP8_BAR),
        (f"static 8-bit {100 * static:.1f} % vs dynamic 8-bit {100 * dynamic:.1f} %", "static worse", static < dynamic),
    ]
    energy = precision_energy_table().set_index("format")
    for t, fujitsu in (("int16", 0.5), ("int8", 0.25)):
        ratio = energy.loc[t, "mac_pj"] / energy.loc["fp32", "mac_pj"]
        print(f"compute energy per MAC {t} / fp32: {ratio:.3f} (Fujitsu compute-unit power: about {fujitsu}; "
              "the 45 nm table is arithmetic only, see the precision-energy README)")
    for measured, bar, ok in checks:
        print(f"{verdict(ok)}  {measured}  (bar {bar})")
    return 0 if all(ok for _, _, ok in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
