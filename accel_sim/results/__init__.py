from accel_sim.results.counts import ActionCount
from accel_sim.results.layer_result import LayerResult

__all__ = ["ActionCount", "LayerResult"]
