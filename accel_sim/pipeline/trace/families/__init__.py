"""One module per family: its :class:`~accel_sim.pipeline.trace.source.TraceSource` (``SOURCE``),
listed in :data:`accel_sim.pipeline.trace.files.BUILDERS`."""
