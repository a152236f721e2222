"""Storage of a workload's weights in a sparse format, per layer (``accel-sim storage``): the
workload-facing side of :mod:`accel_sim.compress`, which itself knows nothing of layers."""
