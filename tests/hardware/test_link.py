"""Link, the one bandwidth-limited block, in each rate mode: (who, what, when) logs, end cycles, counts."""
import pytest
import simpy

from accel_sim.hardware import BytesPerCycle, Link, LogEntry, WordsPerCycle


def run(link: Link, env: simpy.Environment, requests) -> dict[str, int]:
    """Issue ``(name, at, verb, amounts, keywords)`` requests, each from its own process; their end cycles."""
    done = {}

    def requester(name, at, verb, amounts, keywords):
        yield env.timeout(at)
        done[name] = yield getattr(link, verb)(*amounts, name, **keywords)

    for name, at, verb, amounts, keywords in requests:
        env.process(requester(name, at, verb, amounts, keywords))
    env.run()
    return done


# --- whole words per cycle (a DRAM stream: bus lines, a latency after the last line) ---

def words_link(words_per_cycle=4, latency=2, initial_time=0):
    env = simpy.Environment(initial_time=initial_time)
    return env, Link(env, "dram", WordsPerCycle(words_per_cycle), latency, word_bits=8, log=[])


def test_reads_queue_on_the_port_and_overlap_their_latency():
    env, link = words_link()
    done = run(link, env, [("a", 0, "get", (10,), {}),    # 3 lines in cycles 0, 1, 2; data of the last in 2 + 2
                           ("b", 1, "get", (4,), {})])    # waits for the port until cycle 3; 1 line; data in 3 + 2
    assert link.log == [LogEntry("a", "read start", 0), LogEntry("b", "read start", 3),
                        LogEntry("a", "read end", 4), LogEntry("b", "read end", 5)]
    assert done == {"a": 4, "b": 5}
    assert (link.counter.reads, link.counter.writes, link.counter.read_bits) == (14, 0, 14 * 8)
    assert (link.transfers, link.busy_cycles) == (2, 4)


def test_posted_writes_end_with_their_last_line():
    env, link = words_link(words_per_cycle=2, latency=0)
    done = run(link, env, [("w", 0, "put", (5,), {})])   # 3 lines in cycles 0..2, posted: ends in cycle 2
    assert done == {"w": 2}
    assert link.log == [("w", "write start", 0), ("w", "write end", 2)]
    assert link.counter.writes == 5


def test_scheduled_transfers_start_where_told_and_past_ones_end_at_once():
    env, link = words_link(words_per_cycle=10, latency=1, initial_time=-20)
    link.get(40, "fill", at=-5)                  # lines -5..-2, data of the last in -1
    env.run(until=0)
    late = link.get(20, "late", at=-10)          # claimed in cycle 0, ended in -8
    env.run()
    assert late.value == -8
    assert link.log == [("fill", "read start", -5), ("fill", "read end", -1),
                        ("late", "read start", -10), ("late", "read end", -8)]
    assert link.end_cycle(7, 3) == 10 and link.cycles_for(41) == 5
    assert link.counter.reads == 60


# --- fractional bytes per cycle over bits (a link; a bus moving burst lists) ---

def test_a_fractional_link_takes_whole_cycles_and_delivers_the_cycle_after_its_last_beat():
    env = simpy.Environment()
    link = Link(env, "hbm", BytesPerCycle(1102.8), log=[])
    done = run(link, env, [("x", 0, "get", (8 * 1102,), {}),     # under one cycle's bytes: 1 cycle
                           ("y", 0, "get", (8 * 1103,), {}),     # just over: 2 cycles, after x
                           ("z", 5, "put", (0,), {})])           # nothing: its turn, no time
    assert done == {"x": 1, "y": 3, "z": 5}
    assert link.log == [("x", "read start", 0), ("x", "read end", 1), ("y", "read start", 1),
                        ("y", "read end", 3), ("z", "write start", 5), ("z", "write end", 5)]


def test_burst_lists_take_the_ceiling_of_their_bytes_and_may_be_timed_by_other_bits():
    env = simpy.Environment()
    bus = Link(env, "dram", BytesPerCycle(12.5), log=[])
    done = run(bus, env, [("a", 0, "burst", (800, 1), {}),            # 801 bits = 100.125 B: 9 cycles
                          ("b", 2, "burst", (0, 0), {}),               # nothing to move: ends when it gets the bus
                          ("c", 3, "burst", (100, 0), {"timed": 8})])  # counts 100 bits, takes the time of 8
    assert done == {"a": 9, "b": 9, "c": 10}
    assert bus.log == [("a", "burst start", 0), ("a", "burst end", 9), ("b", "burst start", 9),
                       ("b", "burst end", 9), ("c", "burst start", 9), ("c", "burst end", 10)]
    assert (bus.counter.reads, bus.counter.writes, bus.busy_cycles) == (900, 1, 10)
    assert bus.cycles_for(801) == 9 and bus.cycles_for(800) == 8


def test_bad_links_and_transfers_are_refused():
    env = simpy.Environment()
    with pytest.raises(ValueError, match="at least one word"):
        WordsPerCycle(0)
    with pytest.raises(ValueError, match="positive number of bytes"):
        BytesPerCycle(0.0)
    with pytest.raises(ValueError, match="negative latency"):
        Link(env, "d", WordsPerCycle(1), latency=-1)
    with pytest.raises(ValueError, match="negative read"):
        Link(env, "d", BytesPerCycle(1.0)).get(-1, "x")
    with pytest.raises(ValueError, match="negative transfer time"):
        Link(env, "d", BytesPerCycle(1.0)).burst(1, 0, "x", timed=-1)
