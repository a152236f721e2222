from accel_sim.foundations.results.counts import ActionCount
from accel_sim.foundations.results.layer_result import LayerResult

__all__ = ["ActionCount", "LayerResult"]
