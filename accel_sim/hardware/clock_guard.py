"""Run a SimPy model until it is done, but never past ``max_cycles`` (STYLE: every simulation
runs under a guard that raises instead of hanging)."""
from __future__ import annotations

import simpy

from accel_sim.foundations.errors import SimulationError


def run_until_done(env: simpy.Environment, done: simpy.Event, max_cycles: int | None, what: str) -> int:
    """Run ``env`` until ``done`` is processed; the cycle it ended in. Raises
    :class:`SimulationError` naming ``what`` when the model would run past ``max_cycles``."""
    if max_cycles is None:
        env.run(until=done)
        return int(env.now)
    env.run(until=env.any_of([done, env.timeout(max_cycles + 1 - env.now)]))
    if not done.triggered or env.now > max_cycles:
        raise SimulationError(f"{what}: the reference passed max_cycles={max_cycles}")
    return int(env.now)
