"""Training on one device: the backward pass's GEMMs, per-layer forward / backward timing, and the
training-memory planner (tensors, liveness, conventional vs reordered schedules).

- :mod:`~accel_sim.systems.training.backward`: from a forward layer, its input-error and weight-gradient GEMMs;
- :mod:`~accel_sim.systems.training.timing`: forward / backward time and energy per layer on any arch, through
  :func:`accel_sim.pipeline.simulate.simulate_layer`;
- :mod:`~accel_sim.systems.training.memory`: the training-memory planner.
"""
