"""Double-buffered scratchpads: geometry (SCALE-Sim's numbers), (who, what, when) logs of fills,
prefetch bursts and drains, stall charges, and the write buffer's line accounting."""
import numpy as np
import pytest
import simpy

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware import Link, WordsPerCycle
from accel_sim.hardware.scalesim_scratchpad import ReadBufferGeometry, ReadScratchpad, WriteBufferGeometry, WriteScratchpad


def test_read_geometry_of_scalesim_golden_ws_ifmap():
    """64 KiB of 1-byte words, 10 words/cycle, 65536-word ifmap: SCALE-Sim's numbers."""
    g = ReadBufferGeometry(capacity_words=65536, words_per_cycle=10, fetch_words=65536, valid_words=65536)
    assert (g.active_words, g.prefetch_words, g.set_words) == (32768, 32768, 656)
    assert (g.sets, g.active_sets, g.prefetch_sets) == (100, 50, 50)
    assert (g.initial_lines, g.burst_lines) == (3277, 3277)


def test_read_geometry_when_everything_fits():
    g = ReadBufferGeometry(capacity_words=65536, words_per_cycle=10, fetch_words=1000, valid_words=900)
    assert g.sets == 2  # one full set of 656 plus the open one
    assert (g.active_sets, g.prefetch_sets) == (2, 0)
    assert g.initial_lines == 100  # the whole sequence, not the whole active half


def test_write_geometry():
    g = WriteBufferGeometry(capacity_words=65536, words_per_cycle=10)
    assert (g.active_words, g.drain_words, g.lines_per_drain) == (32768, 32768, 3277)


def read_setup():
    """8-word buffer (sets of one word; 4 resident), 12-word sequence, 2 words/cycle, latency 1."""
    env = simpy.Environment(initial_time=-3)
    channel = Link(env, "dram", WordsPerCycle(2), latency=1, word_bits=8, log=[])
    buffer = ReadScratchpad(env, "buf", capacity_words=8, fetch=np.arange(12), channel=channel)
    return env, channel, buffer


def test_read_scratchpad_fill_bursts_and_stall_charges():
    env, channel, buffer = read_setup()
    charges = {}

    def array():
        buffer.prefill(ready_cycle=-1)   # 2 lines in -3, -2; data of the last in -1
        yield env.timeout(0 - env.now)
        charges[0] = buffer.serve(np.array([0, 1, 2, 3]), 0)   # resident
        yield env.timeout(1)
        charges[1] = buffer.serve(np.array([4]), 1)   # miss: burst 1 lines 0..1, ends 2 = cycle + hit latency
        yield env.timeout(1)
        charges[2] = buffer.serve(np.array([8]), 2)   # miss: burst 2 lines 3..4, ends 5: wait 2, charged twice
        yield env.timeout(5)
        charges[7] = buffer.serve(np.array([0]), 7)   # window wraps to sets 12, 0, 1, 2: burst 3 ends 8
        yield env.all_of(buffer.pending)

    env.run(env.process(array()))
    assert charges == {0: 0, 1: 0, 2: 4, 7: 0}
    assert channel.log == [("buf fill", "read start", -3), ("buf fill", "read end", -1),
                           ("buf burst 1", "read start", 0), ("buf burst 1", "read end", 2),
                           ("buf burst 2", "read start", 3), ("buf burst 2", "read end", 5),
                           ("buf burst 3", "read start", 6), ("buf burst 3", "read end", 8)]
    assert buffer.window == (12, 3)
    assert channel.counter.reads == buffer.fills.writes == 4 * 4


def test_early_prefetch_gives_a_negative_charge():
    """A burst that landed before it was needed lowers the offset (SCALE-Sim keeps the credit)."""
    env, channel, buffer = read_setup()
    buffer.prefill(ready_cycle=-1)
    assert buffer.serve(np.array([4]), 10) == 2 - (10 + 1)  # burst 1 ended in cycle 2


def test_an_address_in_no_set_is_an_error():
    env, channel, buffer = read_setup()
    buffer.prefill(ready_cycle=-1)
    with pytest.raises(SimulationError, match="in no set"):
        buffer.serve(np.array([99]), 0)


def write_setup(capacity, words_per_cycle):
    env = simpy.Environment()
    channel = Link(env, "dram", WordsPerCycle(words_per_cycle), latency=0, word_bits=8, log=[])   # posted writes
    return env, channel, WriteScratchpad(env, "out", capacity_words=capacity, channel=channel)


def test_write_scratchpad_drains_and_stalls_when_full():
    """4 words (2 per half), 1 word per line: a drain of 2 lines takes 2 cycles."""
    env, channel, buffer = write_setup(capacity=4, words_per_cycle=1)
    assert buffer.store(6, 0) == 1     # word 3 starts a drain (0..1); word 6 finds the buffer full
    assert buffer.stalled_on is buffer.drains[0]
    assert buffer.store(1, 2) == 0     # next drain from cycle 2
    assert buffer.flush(5) == 7        # the rest, drain after drain
    env.run()
    assert channel.log == [("out drain 1", "write start", 0), ("out drain 1", "write end", 1),
                           ("out drain 2", "write start", 2), ("out drain 2", "write end", 3),
                           ("out drain 3", "write start", 5), ("out drain 3", "write end", 6),
                           ("out drain 4", "write start", 7), ("out drain 4", "write end", 7)]
    assert (buffer.drain_starts, buffer.drain_ends) == ([0, 2, 5, 7], [1, 3, 6, 7])
    assert channel.counter.writes == buffer.drained.reads == 7


def test_partial_lines_are_counted_full_unless_last_of_a_drain():
    """SCALE-Sim's write-count quirk: a partial line in the middle of a drain counts as full."""
    env, channel, buffer = write_setup(capacity=8, words_per_cycle=2)
    assert buffer.store(5, 0) == 0    # word 5 closes lines [2, 2, 1] and drains the first two
    assert buffer.drained.reads == 4
    buffer.store(1, 1)                # open line [1]
    buffer.flush(3)                   # drains [1, 1]: counted 2 + 1
    assert buffer.drained.reads == 4 + 3  # 6 words stored, 7 counted
