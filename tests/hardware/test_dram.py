"""DramChannel: (who, what, when) logs of serialised and explicitly timed transfers, and counts."""
import pytest
import simpy

from accel_sim.hardware.dram_channel import READ, WRITE, DramChannel, LogEntry


def make(words_per_cycle=4, read_latency=2, write_latency=0, initial_time=0):
    env = simpy.Environment(initial_time=initial_time)
    return env, DramChannel(env, "dram", words_per_cycle, read_latency, word_bits=8, write_latency=write_latency)


def test_serialised_reads_queue_on_the_port_and_overlap_latency():
    env, channel = make()
    done = {}

    def requester(name, at, words):
        yield env.timeout(at)
        done[name] = yield channel.read(words, name)

    env.process(requester("a", 0, 10))  # 3 lines: issued in cycles 0, 1, 2; data of the last in 2 + 2
    env.process(requester("b", 1, 4))   # waits for the port until cycle 3; 1 line; data in 3 + 2
    env.run()
    assert channel.log == [LogEntry("a", "read start", 0), LogEntry("b", "read start", 3),
                           LogEntry("a", "read end", 4), LogEntry("b", "read end", 5)]
    assert done == {"a": 4, "b": 5}
    assert channel.counter.reads == 14 and channel.counter.writes == 0
    assert channel.counter.read_bits == 14 * 8


def test_serialised_write_is_posted():
    env, channel = make(words_per_cycle=2, write_latency=0)
    process = channel.write(5, "w")  # 3 lines in cycles 0..2, posted: ends in cycle 2
    env.run()
    assert process.value == 2
    assert channel.log == [("w", "write start", 0), ("w", "write end", 2)]
    assert channel.counter.writes == 5


def test_timed_transfers_start_where_told_and_past_ones_end_at_once():
    env, channel = make(words_per_cycle=10, read_latency=1, initial_time=-20)
    channel.transfer_at(READ, -5, 4, 40, "fill")     # lines -5..-2, data of the last in -1
    env.run(until=0)
    late = channel.transfer_at(READ, -10, 2, 20, "late")  # claimed in cycle 0, ended in -8
    env.run()
    assert late.value == -8
    assert channel.log == [("fill", "read start", -5), ("fill", "read end", -1),
                           ("late", "read start", -10), ("late", "read end", -8)]
    assert channel.end_cycle(WRITE, 7, 3) == 9
    assert channel.lines_for(41) == 5
    assert channel.counter.reads == 60


def test_bad_channels_are_rejected():
    env = simpy.Environment()
    with pytest.raises(ValueError, match="at least one word"):
        DramChannel(env, "d", 0, 1, word_bits=8)
    with pytest.raises(ValueError, match="negative latency"):
        DramChannel(env, "d", 1, -1, word_bits=8)
    with pytest.raises(ValueError, match="unknown transfer kind"):
        DramChannel(env, "d", 1, 1, word_bits=8).transfer_at("erase", 0, 1, 1, "x")
