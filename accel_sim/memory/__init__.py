"""Memory building blocks (SimPy): DRAM channels, double-buffered scratchpads, access counters."""
from accel_sim.memory.counters import AccessCounter
from accel_sim.memory.dram import DramChannel, LogEntry
from accel_sim.memory.sram_buffer import ReadBufferGeometry, ReadScratchpad, WriteBufferGeometry, WriteScratchpad

__all__ = ["AccessCounter", "DramChannel", "LogEntry", "ReadBufferGeometry", "ReadScratchpad",
           "WriteBufferGeometry", "WriteScratchpad"]
