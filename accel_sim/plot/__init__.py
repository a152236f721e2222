"""Figures: functions from result frames to matplotlib Figures. The only package that imports
matplotlib; the simulation never does."""
from accel_sim.plot.layers import layer_overview
from accel_sim.plot.save import save_figure

__all__ = ["layer_overview", "save_figure"]
