"""The families the viewer tests open, and the example each is traced on."""
from accel_sim.pipeline.trace.teaching import example, families

FAMILIES = families()

__all__ = ["FAMILIES", "example"]
