"""Teaching traces: per-cycle events of a small run, as Chrome / Perfetto JSON and a text table.

Family-neutral: a model builds a :class:`~accel_sim.trace.events.Trace` (tracks of slices,
counter tracks, a cycle table) from its per-cycle reference; this package writes it out.
"""
