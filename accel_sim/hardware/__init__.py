"""Hardware building blocks shared by the discrete-event references (SimPy).

One protocol, SimPy's own: a block is driven by **events**. ``put(...)`` hands it something
(an entry, a write, a batch of products, a party's arrival), ``get(...)`` takes something from it
(an entry, a read); each returns an event the caller yields, whose value is what the caller waits
for (the entry, the cycle the data is in place). Blocks are customised through **narrow hooks**,
never by rewriting the verbs: a FIFO is a :class:`simpy.Store` (hooks ``_do_put`` / ``_do_get``);
a bandwidth-limited block is a :class:`Link` whose timing has one parameter, its **rate**
(:mod:`~accel_sim.hardware.rate`), and whose counting is the ``_count`` hook. Every block counts
what it does (accesses, transfers, stall or conflict cycles), knows no energy (costing happens
after the run) and, given a list, logs ``(who, what, when)`` tuples (:class:`LogEntry`).

Rate semantics of a :class:`Link` (one block for DRAM channels, DRAM buses and on-chip links):

- :class:`WordsPerCycle`: whole words per cycle, ``ceil(words / words_per_cycle)`` bus lines
  (SCALE-Sim's DRAM streams: ``Link(env, name, WordsPerCycle(n), latency=dram_latency)``);
- :class:`BytesPerCycle`: fractional bytes per cycle over amounts in bits, a burst list's fractions
  of a cycle added before its ceiling (a DRAM bus at 12.5 B/cycle, an A100's L2 path);
- :class:`LockstepBanks`: lock-step steps into banks (the :class:`ScatterCrossbar`).

``latency`` counts from the cycle of the last beat (1: the data is usable the cycle after it; a
DRAM adds its access latency; posted writes 0).

The blocks:

- :class:`Link` (``link``): ``get`` (read), ``put`` (write), ``burst`` (reads and writes back to back);
- :class:`Fifo`: ``put`` / ``get``, a :class:`simpy.Store` of the hardware depth with back-pressure;
- :class:`Broadcast`: ``put`` into every receiver's FIFO (credit-based flow control), ``get`` from one;
- :class:`ScatterCrossbar`: ``put`` a batch of lock-step steps into banks (a :class:`Link`);
- :class:`Barrier`: ``put`` a party's arrival; the event fires when every party has arrived;
- :class:`EndOfCycle` (``cycle_phase``): an event after every other event of the current cycle;
- :func:`run_until_done`: run a model to its end under a ``max_cycles`` guard;
- :class:`Recorder` (``recorder``): the optional event log of a run for teaching traces; the blocks
  above take one (``recorder=``) and record their FIFO entries, DRAM bursts, sends, barrier waits
  and bank conflicts; without one they pay a comparison per place they could record;
- SCALE-Sim's double-buffered scratchpads (``scalesim_scratchpad``) in front of a :class:`Link`, used
  by the systolic family. They keep SCALE-Sim's ``yield from buffer.read(addresses, cycle)`` /
  ``write(words, cycle)``: what they return is SCALE-Sim's charge for a demand cycle (an offset it
  adds, possibly negative), not an event's value, and the same charge is also served without
  waiting (``serve`` / ``store``), as the block-level refinement tests use it.
"""
from accel_sim.hardware.barrier import Barrier
from accel_sim.hardware.broadcast import Broadcast
from accel_sim.hardware.clock_guard import run_until_done
from accel_sim.hardware.counters import AccessCounter
from accel_sim.hardware.cycle_phase import EndOfCycle
from accel_sim.hardware.fifo import Fifo
from accel_sim.hardware.link import Link
from accel_sim.hardware.log import LogEntry
from accel_sim.hardware.rate import BytesPerCycle, LockstepBanks, WordsPerCycle
from accel_sim.hardware.recorder import Recorder
from accel_sim.hardware.scalesim_scratchpad import ReadBufferGeometry, ReadScratchpad, WriteBufferGeometry, WriteScratchpad
from accel_sim.hardware.scatter_crossbar import ScatterCrossbar

__all__ = ["AccessCounter", "Barrier", "Broadcast", "BytesPerCycle", "EndOfCycle", "Fifo", "Link", "LockstepBanks",
           "LogEntry", "ReadBufferGeometry", "ReadScratchpad", "Recorder", "ScatterCrossbar", "WordsPerCycle",
           "WriteBufferGeometry", "WriteScratchpad", "run_until_done"]
