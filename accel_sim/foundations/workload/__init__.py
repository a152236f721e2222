from accel_sim.foundations.workload.layer import (
    BatchedGemmLayer,
    ConvLayer,
    GemmLayer,
    GemmShape,
    Layer,
    Network,
    NMSparsity,
    VectorLayer,
)
from accel_sim.foundations.workload.loader import load_workload

__all__ = ["BatchedGemmLayer", "ConvLayer", "GemmLayer", "GemmShape", "Layer", "NMSparsity", "Network",
           "VectorLayer", "load_workload"]
