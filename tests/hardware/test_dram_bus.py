"""DramBus: burst lists of reads and writes at a fractional bandwidth; logs, counts, timed bits."""
import pytest
import simpy

from accel_sim.hardware.dram_bus import DramBus
from accel_sim.hardware.dram_channel import LogEntry


def test_burst_lists_take_the_ceiling_of_their_bytes_and_queue():
    env = simpy.Environment()
    bus = DramBus(env, bytes_per_cycle=12.5)
    ends = {}

    def issue(name, at, reads, writes, timed=None):
        yield env.timeout(at)
        ends[name] = yield bus.transfer(reads, writes, name, timed_bits=timed)

    env.process(issue("a", 0, 800, 1))      # 801 bits = 100.125 B: 9 cycles at 12.5 B/cycle
    env.process(issue("b", 2, 0, 0))        # nothing to move: ends when it gets the bus
    env.process(issue("c", 3, 100, 0, 8))   # counted 100 bits, moves in the time of 8: 1 cycle
    env.run()
    assert ends == {"a": 9, "b": 9, "c": 10}
    assert bus.log == [LogEntry("a", "start", 0), LogEntry("a", "end", 9), LogEntry("b", "start", 9),
                       LogEntry("b", "end", 9), LogEntry("c", "start", 9), LogEntry("c", "end", 10)]
    assert (bus.read_bits, bus.write_bits, bus.busy_cycles) == (900, 1, 10)
    assert bus.cycles_for(801) == 9 and bus.cycles_for(800) == 8


def test_bad_transfers_are_refused():
    env = simpy.Environment()
    with pytest.raises(ValueError, match="positive number of bytes"):
        DramBus(env, 0.0)
    with pytest.raises(ValueError, match="negative transfer"):
        DramBus(env, 1.0).transfer(-1, 0, "x")
