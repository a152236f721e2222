"""Derived metrics: columns computed from a point's summary after the run.

They are computed when results are loaded, not stored, so adding a metric to a sweep file
never recomputes a point. A metric whose inputs a model does not report (``area_mm2``:
no model reports area yet) is skipped, not filled with NaN.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class DerivedMetric:
    name: str                                        # as written under ``metrics:`` in a sweep file
    column: str                                      # result column, unit in the name
    doc: str
    needs: tuple[str, ...]                           # summary columns it is computed from
    compute: Callable[[pd.DataFrame], pd.Series]


METRICS: dict[str, DerivedMetric] = {m.name: m for m in (
    DerivedMetric("edp", "edp_pj_cycles", "Energy-delay product: energy_pj x cycles.",
                  ("energy_pj", "cycles"), lambda f: f["energy_pj"] * f["cycles"]),
    DerivedMetric("throughput_macs_per_cycle", "throughput_macs_per_cycle",
                  "Effective throughput: dense MACs of the network per cycle (skipped MACs count as done).",
                  ("macs_dense", "cycles"), lambda f: f["macs_dense"] / f["cycles"]),
    DerivedMetric("energy_per_mac", "energy_per_mac_pj", "Energy per dense MAC.",
                  ("energy_pj", "macs_dense"), lambda f: f["energy_pj"] / f["macs_dense"]),
    DerivedMetric("throughput_per_area", "throughput_macs_per_cycle_mm2",
                  "Effective throughput per mm2 of silicon; only when the model reports area_mm2.",
                  ("macs_dense", "cycles", "area_mm2"),
                  lambda f: f["macs_dense"] / f["cycles"] / f["area_mm2"]),
)}
DEFAULT_METRICS = ("edp", "throughput_macs_per_cycle")


def add_metrics(frame: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """``frame`` with one column per named metric appended (metrics lacking an input skipped)."""
    out = frame.copy()
    for name in names:
        metric = METRICS[name]
        if len(out) and all(c in out.columns for c in metric.needs):
            out[metric.column] = metric.compute(out)
    return out
