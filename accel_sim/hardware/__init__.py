"""Hardware building blocks shared by the discrete-event references (SimPy).

- :class:`DramChannel`: a DRAM stream of whole words per cycle with latency (``dram_channel``);
- :class:`DramBus`: a DRAM interface of fractional bandwidth moving burst lists (``dram_bus``);
- :class:`Link`: a bandwidth-limited link of any bytes per cycle (``link``);
- :class:`Fifo`: a FIFO of the hardware depth, a :class:`simpy.Store` with back-pressure;
- :class:`Broadcast`: a broadcast bus into several FIFOs with credit-based flow control;
- :class:`ScatterCrossbar`: a lock-step scatter crossbar into banks (same-bank items serialise);
- :class:`Barrier`: a reusable barrier of ``parties`` processes;
- :class:`EndOfCycle` (``cycle_phase``): an event after every other event of the current cycle;
- :func:`run_until_done`: run a model to its end under a ``max_cycles`` guard;
- SCALE-Sim's double-buffered scratchpads (``scalesim_scratchpad``), used by the systolic family.

Each block counts what it does (accesses, transfers, stall or conflict cycles) and none of
them knows an energy: costing happens after the run.
"""
from accel_sim.hardware.barrier import Barrier
from accel_sim.hardware.clock_guard import run_until_done
from accel_sim.hardware.counters import AccessCounter
from accel_sim.hardware.dram_channel import DramChannel, LogEntry
from accel_sim.hardware.fifo import Fifo
from accel_sim.hardware.scalesim_scratchpad import ReadBufferGeometry, ReadScratchpad, WriteBufferGeometry, WriteScratchpad

__all__ = ["AccessCounter", "Barrier", "DramChannel", "Fifo", "LogEntry",
           "ReadBufferGeometry", "ReadScratchpad", "WriteBufferGeometry", "WriteScratchpad", "run_until_done"]
