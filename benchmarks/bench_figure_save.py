"""CPU of writing a tight_layout figure: ``save_figure`` (which drops the placeholder layout engine
``tight_layout`` leaves, so savefig skips its layout pre-draw) against a plain ``savefig`` of the same figure
at the same DPI, alternated in one run, and whether the two PNGs are byte-identical.

    python benchmarks/bench_figure_save.py [--repeats 8]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _frame():
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(0)
    n = 24
    frame = pd.DataFrame({"layer": [f"conv{i}" for i in range(n)], "compute_cycles": rng.integers(1e3, 1e6, n),
                          "stall_cycles": rng.integers(0, 1e5, n)})
    for part in ("mac", "sram", "dram"):
        frame[f"energy_{part}_pj"] = rng.uniform(1e6, 1e8, n)
    return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=8)
    args = parser.parse_args()
    import matplotlib.pyplot as plt
    from accel_sim.pipeline.plot.layers import layer_overview
    from accel_sim.pipeline.plot.save import DPI, save_figure

    frame, spent = _frame(), {"savefig": 0.0, "save_figure": 0.0}
    with tempfile.TemporaryDirectory() as out:
        paths = {way: Path(out) / f"{way}.png" for way in spent}
        for _ in range(args.repeats):
            for way in spent:
                figure = layer_overview(frame, "benchmark")
                start = time.process_time()
                if way == "savefig":
                    figure.savefig(paths[way], dpi=DPI)
                    plt.close(figure)
                else:
                    save_figure(figure, paths[way])
                spent[way] += time.process_time() - start
        same = paths["savefig"].read_bytes() == paths["save_figure"].read_bytes()
    for way, seconds in spent.items():
        print(f"{way:12s} {1e3 * seconds / args.repeats:7.1f} ms CPU a figure")
    print(f"save_figure / savefig: {spent['save_figure'] / spent['savefig']:.2f}; PNG bytes identical: {same}")


if __name__ == "__main__":
    main()
