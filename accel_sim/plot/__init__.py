from accel_sim.plot.layers import layer_overview

__all__ = ["layer_overview"]
