"""Registered studies; see :mod:`accel_sim.studies.registry`."""
