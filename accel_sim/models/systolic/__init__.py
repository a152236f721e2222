"""Dense systolic arrays (output / weight / input stationary), cycle-compatible with SCALE-Sim v3.

- :mod:`~accel_sim.models.systolic.spec`: the ``systolic:`` config section (array, SRAM buffers);
- :mod:`~accel_sim.models.systolic.plan`: folding a layer's GEMM onto the array, operand addresses and
  fetch orders, buffer sizes;
- :mod:`~accel_sim.models.systolic.fast`: the fast path (closed forms, vectorised numpy), one file per
  block (demand streams, read buffers, ofmap drain, footprints, the timeline);
- :mod:`~accel_sim.models.systolic.reference`: the SimPy reference (array process, read buffers,
  ofmap drain, SCALE-Sim-style demand matrices);
- :mod:`~accel_sim.models.systolic.counters` / :mod:`~accel_sim.models.systolic.accounting`: what both paths
  count, and how it becomes SCALE-Sim's report quantities, actions and bytes;
- :mod:`~accel_sim.models.systolic.family`: ``FAMILY``, the contract's hooks.
"""
