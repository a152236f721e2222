"""EIE load-balance efficiency vs activation FIFO depth (1..256), 64 PEs, the nine benchmark layers."""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.plot.studies.eie_fifo_depth import efficiency_vs_depth
from accel_sim.studies.eie_common import EIE_PAPER, timing_sweep
from accel_sim.studies.template import readme
from accel_sim.studies.registry import Comparison, StudyOutput, study

DEPTHS = tuple(2**i for i in range(9))  # 1..256, the paper's sweep (brief)
PUBLISHED_DEPTH_1_EFFICIENCY = 0.5      # brief: "at depth 1 about half of the cycles are bubbles"


def fifo_depth_frame(layers: tuple[str, ...] | None = None, depths: tuple[int, ...] = DEPTHS) -> pd.DataFrame:
    """One row per (layer, depth): cycles, load efficiency, FIFO-full stalls. The encoding is
    made once per layer; only the timing is re-run per depth."""
    rows = [{"layer": layer.name, "fifo_depth": depth, "cycles": run.result.compute_cycles,
             "load_efficiency": run.result.metrics["load_efficiency"],
             "stall_fifo_full_cycles": int(run.result.metrics["stall_fifo_full_cycles"])}
            for layer, depth, run in timing_sweep("fifo_depth", depths, layers)]
    return pd.DataFrame(rows)


@study("eie-fifo-depth", "EIE: load-balance efficiency vs activation FIFO depth (64 PEs, nine layers)", cpu_s=5.6)
def eie_fifo_depth(layers: tuple[str, ...] | None = None, depths: tuple[int, ...] = DEPTHS) -> StudyOutput:
    frame = fifo_depth_frame(layers, depths)
    by_depth = frame.groupby("fifo_depth")["load_efficiency"].mean()
    first, chosen, last = min(depths), 8 if 8 in depths else max(depths), max(depths)
    comparisons = (
        Comparison(f"mean load-balance efficiency at depth {first} (published: at depth 1, about half the cycles "
                   "are bubbles)", "fraction", PUBLISHED_DEPTH_1_EFFICIENCY, float(by_depth[first]),
                   f"{EIE_PAPER}: depth swept 1..256"),
        Comparison(f"mean efficiency gain from depth {chosen} to {last} (published: little; depth 8 chosen)",
                   "fraction", None, float(by_depth[last] - by_depth[chosen]), f"{EIE_PAPER}: depth 8 chosen"),
    )
    nt_we = frame.loc[frame["layer"] == "NT-We", "load_efficiency"]
    cap = f" (here at most {nt_we.max():.2f})" if len(nt_we) else ""
    text = readme(__name__, cap=cap)
    return StudyOutput(frame, efficiency_vs_depth(frame), text, comparisons)
