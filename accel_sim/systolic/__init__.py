"""Dense systolic arrays (output / weight / input stationary), cycle-compatible with SCALE-Sim v3.

- :mod:`~accel_sim.systolic.mapping`: folding a layer's GEMM onto the array;
- :mod:`~accel_sim.systolic.operands`: operand addresses, fetch and demand orders;
- :mod:`~accel_sim.systolic.timing`: the fast path (closed forms, vectorised numpy);
- :mod:`~accel_sim.systolic.reference`: the per-fold SimPy reference;
- :mod:`~accel_sim.systolic.model`: ``simulate_layer`` / ``simulate_layer_reference``.
"""
