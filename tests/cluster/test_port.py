"""The cluster reference's communication stage (:class:`Port`) serves requests in the order, and at the
moments, a :class:`simpy.PriorityResource` of capacity 1 does: same priority order, ties by request time
then arrival, and the same events (a grant at a release waits for the release event)."""
from __future__ import annotations

import random

import pytest
import simpy

from accel_sim.systems.cluster.reference import Port


def _served(use_port: bool, seed: int) -> list[tuple[int, int, float]]:
    rng = random.Random(seed)
    env = simpy.Environment()
    port = Port(env) if use_port else simpy.PriorityResource(env, capacity=1)
    served: list[tuple[int, int, float]] = []

    def user(who: int, arrive: float, priority: int, hold: float, again: float):
        yield env.timeout(arrive / 2)   # two halves: a request scheduled between a grant and the release event
        yield env.timeout(arrive / 2)
        for visit in range(3):
            if use_port:
                yield port.request(priority)
                served.append((who, visit, env.now))
                yield env.timeout(hold)
                port.release()
            else:
                with port.request(priority=priority) as slot:
                    yield slot
                    served.append((who, visit, env.now))
                    yield env.timeout(hold)
            yield env.timeout(again)

    for who in range(24):   # few distinct times, priorities and holds: many ties, zero-length holds
        env.process(user(who, rng.choice((0.0, 0.5, 1.0, 2.0)), rng.randint(0, 2), rng.choice((0.0, 0.5, 1.0)),
                         rng.choice((0.0, 0.5))))
    env.run()
    return served


@pytest.mark.parametrize("seed", range(60))
def test_port_serves_as_priority_resource(seed):
    assert _served(True, seed) == _served(False, seed)
