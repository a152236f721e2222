"""The vector unit: the non-matrix work of a transformer (softmax, norms, activations, rotary
embedding, residual additions), one shared block attached to every family.

A :class:`~accel_sim.foundations.workload.layer.VectorLayer` is run here for any arch
(:func:`accel_sim.pipeline.simulate.simulate_layer`), never by a family. The roles follow the family
contract: ``spec`` (the ``vector_unit:`` section of an arch config), ``plan`` (pure: rows over units,
passes, stage times; ``plan.ops``: each operator's work per element and per row),
``fast`` (closed form), ``reference`` (SimPy: an SRAM reader and an ALU / SFU process per
unit, a FIFO of the configured depth between them, events per vector of ``lanes`` elements),
``accounting`` (counters to a :class:`~accel_sim.foundations.results.layer_result.LayerResult` with
actions), ``family`` (the contract's object, and :func:`~accel_sim.models.vector_unit.family.vector_layer_result`
with the overlap budget).
"""
