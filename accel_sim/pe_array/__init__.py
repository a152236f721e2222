"""Generic PE array with a selectable level of sparsity support (none / memory / gating /
skipping / reassignment). The model lives in :mod:`accel_sim.pe_array.model`."""
