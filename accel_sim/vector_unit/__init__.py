"""The vector unit: the non-matrix work of a transformer (softmax, norms, activations, rotary
embedding, residual additions), one shared block attached to every family.

A :class:`~accel_sim.workload.layer.VectorLayer` is run here for any arch
(:func:`accel_sim.simulate.simulate_layer`), never by a family. The roles follow the family
contract: ``spec`` (the ``vector_unit:`` section of an arch config), ``ops`` (each operator's
work per element and per row), ``plan`` (pure: rows over units, passes, stage times),
``fast`` (closed form), ``reference`` (SimPy: an SRAM reader and an ALU / SFU process per
unit, a FIFO of the configured depth between them, events per vector of ``lanes`` elements),
``accounting`` (counters to a :class:`~accel_sim.results.layer_result.LayerResult` with
actions), ``breakdown`` (per-operator table of a run).
"""
