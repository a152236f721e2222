from accel_sim.workload.layer import ConvLayer, GemmLayer, GemmShape, Layer, Network, NMSparsity
from accel_sim.workload.loader import load_workload

__all__ = ["ConvLayer", "GemmLayer", "GemmShape", "Layer", "NMSparsity", "Network", "load_workload"]
