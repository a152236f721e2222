"""Broadcast: one entry into every FIFO in the same cycle, held back while any FIFO is full;
a slot freed by a pop is refilled in the same cycle; receivers see an entry ``latency`` later."""
import pytest
import simpy

from accel_sim.hardware import Broadcast, Fifo, LogEntry


def test_a_full_fifo_holds_the_broadcast_for_every_receiver():
    env = simpy.Environment()
    fifos = [Fifo(env, 1, "fast"), Fifo(env, 1, "slow")]
    log: list[LogEntry] = []
    bus = Broadcast(env, fifos, latency=1, log=log)
    popped = []

    def sender():
        for item in "abc":
            yield bus.put(item)
            yield env.timeout(1)

    def receiver(index, work):
        for _ in range(3):
            item = yield bus.get(index)
            popped.append((index, item, int(env.now)))
            yield env.timeout(work)

    env.process(sender())
    env.process(receiver(0, 0))
    env.process(receiver(1, 3))
    env.run()
    # a at 0 (popped at 1); b at 1 (both popped a at 1); c waits for the slow receiver's pop of b at 4
    assert log == [LogEntry("broadcast", "send", 0), LogEntry("broadcast", "send", 1), LogEntry("broadcast", "send", 4)]
    assert sorted(popped) == [(0, "a", 1), (0, "b", 2), (0, "c", 5), (1, "a", 1), (1, "b", 4), (1, "c", 7)]
    assert bus.sent == 3 and bus.full_stall_cycles == 2
    assert [f.pushes for f in fifos] == [3, 3] and [f.pops for f in fifos] == [3, 3]
    assert all(f.max_occupancy <= f.depth for f in fifos)


def test_zero_latency_delivers_in_the_send_cycle():
    env = simpy.Environment()
    bus = Broadcast(env, [Fifo(env, 2, "f")], latency=0)
    got = []

    def receiver():
        item = yield bus.get(0)
        got.append((item, int(env.now)))

    env.process(receiver())
    bus.put("x")
    env.run()
    assert got == [("x", 0)]


def test_bad_buses_are_rejected():
    env = simpy.Environment()
    with pytest.raises(ValueError, match="at least one receiver"):
        Broadcast(env, [])
    with pytest.raises(ValueError, match="negative latency"):
        Broadcast(env, [Fifo(env, 1, "f")], latency=-1)
