"""Hardware building blocks shared by the discrete-event references (SimPy).

- :class:`DramChannel`: a bandwidth- and latency-limited DRAM stream (``dram_channel``);
- :class:`Fifo`: a FIFO of the hardware depth, a :class:`simpy.Store` with back-pressure;
- :class:`BankedSram`: banks serving ``ports`` accesses per cycle, same-bank accesses serialised;
- :class:`Crossbar`: a switch delivering one item per output port per cycle;
- :class:`Barrier`: a reusable barrier of ``parties`` processes;
- :func:`run_until_done`: run a model to its end under a ``max_cycles`` guard;
- SCALE-Sim's double-buffered scratchpads (``scalesim_scratchpad``), used by the systolic family.

Each block counts what it does (accesses, transfers, stall or conflict cycles) and none of
them knows an energy: costing happens after the run.
"""
from accel_sim.hardware.banked_sram import BankedSram
from accel_sim.hardware.barrier import Barrier
from accel_sim.hardware.clock_guard import run_until_done
from accel_sim.hardware.counters import AccessCounter
from accel_sim.hardware.crossbar import Crossbar
from accel_sim.hardware.dram_channel import DramChannel, LogEntry
from accel_sim.hardware.fifo import Fifo
from accel_sim.hardware.scalesim_scratchpad import ReadBufferGeometry, ReadScratchpad, WriteBufferGeometry, WriteScratchpad

__all__ = ["AccessCounter", "BankedSram", "Barrier", "Crossbar", "DramChannel", "Fifo", "LogEntry",
           "ReadBufferGeometry", "ReadScratchpad", "WriteBufferGeometry", "WriteScratchpad", "run_until_done"]
