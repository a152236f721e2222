"""Figures: functions from result frames to matplotlib Figures. The only package that imports
matplotlib (on first use of a name below: :mod:`.layers_svg`, the report's SVG figure, does not);
the simulation never does."""
from __future__ import annotations

import importlib

_NAMES = {"layer_overview": "accel_sim.pipeline.plot.layers", "save_figure": "accel_sim.pipeline.plot.save"}
__all__ = ["layer_overview", "save_figure"]


def __getattr__(name: str):
    if name in _NAMES:
        return getattr(importlib.import_module(_NAMES[name]), name)
    raise AttributeError(f"module 'accel_sim.pipeline.plot' has no attribute {name!r}")
