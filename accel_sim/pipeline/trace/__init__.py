"""Teaching traces: per-cycle events of a small run, as Chrome / Perfetto JSON and a text table.

The writers are family-neutral: a family's builder (``eie``) turns the log of its reference
into a :class:`~accel_sim.pipeline.trace.events.Trace` (tracks of slices, counter tracks, a cycle
table); this package writes it out (``files.write_trace``, called by ``accel-sim trace``).
"""
