"""Analysis of sweep results (pure pandas / numpy): Pareto fronts and per-axis sensitivity.

Both take the frame :func:`~accel_sim.pipeline.sweep.load_results` returns (or any frame with the
named columns) and return frames; :mod:`accel_sim.pipeline.plot.sweep` draws them.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

DEFAULT_OBJECTIVES = ("energy_pj", "cycles")


def _columns(frame: pd.DataFrame, names: Sequence[str]) -> list[str]:
    missing = [n for n in names if n not in frame.columns]
    if missing:
        raise KeyError(f"no column {', '.join(missing)} in the results (have: {', '.join(map(str, frame.columns))})")
    return list(names)


def pareto_mask(frame: pd.DataFrame, objectives: Sequence[str] = DEFAULT_OBJECTIVES) -> pd.Series:
    """True for the rows no other row dominates, all ``objectives`` minimised.

    Row q dominates row p if q is <= p in every objective and < in at least one; rows
    with equal objectives do not dominate each other (both stay on the front). Add
    ``"area_mm2"`` to the objectives when a model reports area. One pass in
    lexicographic order: a row can only be dominated by a row sorted before it.
    """
    values = frame[_columns(frame, objectives)].to_numpy(dtype=float)
    if np.isnan(values).any():
        raise ValueError(f"NaN in the objectives {', '.join(objectives)}")
    order = np.lexsort(values.T[::-1])
    front = np.empty((0, values.shape[1]))
    keep = np.zeros(len(frame), dtype=bool)
    for row in order:
        v = values[row]
        if not (np.all(front <= v, axis=1) & np.any(front < v, axis=1)).any():
            keep[row] = True
            front = np.vstack([front, v])
    return pd.Series(keep, index=frame.index, name="pareto")


def pareto_front(frame: pd.DataFrame, objectives: Sequence[str] = DEFAULT_OBJECTIVES) -> pd.DataFrame:
    """The non-dominated rows (see :func:`pareto_mask`), sorted by the objectives."""
    return frame[pareto_mask(frame, objectives)].sort_values(list(objectives), kind="stable")


def axis_means(frame: pd.DataFrame, metric: str, axis: str) -> pd.DataFrame:
    """Mean, min and max of ``metric`` over all points sharing each value of ``axis``."""
    grouped = frame.groupby(_columns(frame, [axis])[0], sort=True, observed=True)[_columns(frame, [metric])[0]]
    return grouped.agg(["mean", "min", "max", "count"]).reset_index()


def sensitivity(frame: pd.DataFrame, metric: str, axes: Sequence[str] | None = None) -> pd.DataFrame:
    """How much ``metric`` moves with each axis: the range of its per-value means (main effect).

    For every axis, group the points by the axis value and average the metric; the
    ``range`` is the spread of those means, ``relative_range`` that spread over the mean of
    the metric on all points. One row per axis, largest range first, with the axis value
    giving the lowest and the highest mean. ``axes`` defaults to ``frame.attrs["axes"]``
    (set by :func:`~accel_sim.pipeline.sweep.load_results`).
    """
    if axes is None:
        axes = frame.attrs.get("axes")
        if not axes:
            raise ValueError("name the axis columns: the frame has no attrs['axes']")
    overall = frame[_columns(frame, [metric])[0]].mean()
    rows = []
    for axis in axes:
        means = axis_means(frame, metric, axis)
        low, high = means["mean"].idxmin(), means["mean"].idxmax()
        spread = means["mean"].iloc[high] - means["mean"].iloc[low]
        rows.append({"axis": axis, "metric": metric, "levels": len(means),
                     "value_at_min": means[axis].iloc[low], "min_mean": means["mean"].iloc[low],
                     "value_at_max": means[axis].iloc[high], "max_mean": means["mean"].iloc[high],
                     "range": spread, "relative_range": spread / overall if overall else np.nan})
    return pd.DataFrame(rows).sort_values("range", ascending=False, kind="stable").reset_index(drop=True)
