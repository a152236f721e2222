"""ScatterCrossbar, a Link at the lock-step-banks rate: batches of steps into banks; (who, what, when) logs
and counts."""
import numpy as np
import pytest
import simpy

from accel_sim.hardware import LogEntry, ScatterCrossbar


def test_a_step_takes_its_busiest_bank_and_batches_queue_on_the_switch():
    env = simpy.Environment()
    crossbar = ScatterCrossbar(env, banks=4, name="x", log=[])
    done = {}

    def source(name, at, loads):
        yield env.timeout(at)
        start = env.now
        end = yield crossbar.put(np.array(loads), name)
        done[name] = (end - start, end)

    # steps: 2 products on bank 1 (2 cycles), then 1 product each on banks 2, 3 (1 cycle)
    env.process(source("a", 0, [[1, 2, 1, 0], [0, 0, 1, 1]]))
    env.process(source("b", 1, [[0, 0, 0, 3]]))      # waits for the switch until cycle 3
    env.run()
    assert done == {"a": (3, 3), "b": (5, 6)}
    assert crossbar.log == [LogEntry("a", "write start", 0), LogEntry("a", "write end", 3),
                            LogEntry("b", "write start", 3), LogEntry("b", "write end", 6)]
    assert crossbar.bank_writes.tolist() == [1, 2, 2, 4]
    assert (crossbar.steps, crossbar.busy_cycles, crossbar.conflict_cycles) == (3, 6, 3)


def test_wider_banks_and_empty_batches():
    env = simpy.Environment()
    crossbar = ScatterCrossbar(env, banks=2, words_per_cycle=2)
    assert crossbar.rate.step_cycles(np.array([[3, 1], [2, 2], [0, 0]])).tolist() == [2, 1, 0]
    process = crossbar.put(np.zeros((0, 2), dtype=np.int64))
    env.run()
    assert process.value == 0 and env.now == 0 and crossbar.steps == 0


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="banks and words per cycle"):
        ScatterCrossbar(simpy.Environment(), banks=0)
