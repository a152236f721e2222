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
import importlib

# The blocks by name, imported on first use (PEP 562): a plan that reads a constant of one module
# (the systolic plan reads the scratchpads' set count) does not pay for SimPy and every other block.
_BLOCKS = {
    "Barrier": "barrier", "Broadcast": "broadcast", "run_until_done": "clock_guard", "AccessCounter": "counters",
    "EndOfCycle": "cycle_phase", "Fifo": "fifo", "Link": "link", "LogEntry": "log", "BytesPerCycle": "rate",
    "LockstepBanks": "rate", "WordsPerCycle": "rate", "Recorder": "recorder", "ReadBufferGeometry": "scalesim_scratchpad",
    "ReadScratchpad": "scalesim_scratchpad", "WriteBufferGeometry": "scalesim_scratchpad",
    "WriteScratchpad": "scalesim_scratchpad", "ScatterCrossbar": "scatter_crossbar",
}


def __getattr__(name: str):
    if name in _BLOCKS:
        value = getattr(importlib.import_module(f"accel_sim.hardware.{_BLOCKS[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'accel_sim.hardware' has no attribute {name!r}")


__all__ = sorted(_BLOCKS)
