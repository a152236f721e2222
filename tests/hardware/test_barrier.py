"""Barrier: parties put their arrival; all leave in the cycle the last arrives; rounds and wait cycles."""
import pytest
import simpy

from accel_sim.hardware import Barrier


def test_every_party_leaves_when_the_last_arrives_and_the_next_round_opens():
    env = simpy.Environment()
    barrier = Barrier(env, parties=2, name="b")
    log = []

    def party(name, work):
        for w in work:
            yield env.timeout(w)
            log.append((name, "arrive", env.now))
            round_ = yield barrier.put()
            log.append((name, f"leave {round_}", env.now))

    env.process(party("fast", [1, 1]))
    env.process(party("slow", [3, 4]))
    env.run()
    assert log == [("fast", "arrive", 1), ("slow", "arrive", 3), ("fast", "leave 1", 3), ("slow", "leave 1", 3),
                   ("fast", "arrive", 4), ("slow", "arrive", 7), ("fast", "leave 2", 7), ("slow", "leave 2", 7)]
    assert (barrier.rounds, barrier.wait_cycles) == (2, 2 + 3)


def test_a_barrier_needs_a_party():
    with pytest.raises(ValueError, match="at least one party"):
        Barrier(simpy.Environment(), 0)
