"""The ``systolic:`` section of an arch config (family: systolic): the array and its three
double-buffered SRAMs, with SCALE-Sim v3's defaults."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.config.schema import spec_field

SCALESIM = "SCALE-Sim v3 (scalesim 3.0.0) default"


@dataclass(frozen=True)
class BufferSpec:
    size: int = spec_field("Capacity of the on-chip SRAM buffer.", unit="size", positive=True)
    banks: int = spec_field("Number of independently addressed banks.", 1, positive=True,
                            source=f"{SCALESIM} (MemoryBanks: 1)")
    ports: int = spec_field("Ports per bank (reads + writes per cycle per bank).", 2, positive=True,
                            source=f"{SCALESIM} (SRAMBankPort: 2)")
    double_buffered: bool = spec_field(
        "Split the buffer in two halves so the next tile loads while the array uses the current one.",
        True, source=f"{SCALESIM} (double_buffered_scratchpad, active fraction 0.5)")


@dataclass(frozen=True)
class SystolicSpec:
    rows: int = spec_field("Processing-element rows of the array (SCALE-Sim ArrayHeight).", positive=True)
    cols: int = spec_field("Processing-element columns of the array (SCALE-Sim ArrayWidth).", positive=True)
    dataflow: str = spec_field("Which operand stays in the PEs: output (os), weight (ws) or input (is) stationary.",
                               choices=("os", "ws", "is"))
    ifmap_sram: BufferSpec = spec_field("Input feature map buffer.")
    filter_sram: BufferSpec = spec_field("Filter (weight) buffer.")
    ofmap_sram: BufferSpec = spec_field("Output feature map buffer.")
    nm_sparsity: bool = spec_field(
        "Exploit layer-wise N:M filter sparsity (SCALE-Sim v3 SparsitySupport, weight stationary only): "
        "the reduction dimension shrinks to N/M of its length on the array.", False, source=SCALESIM)
    read_request_buffer: int = spec_field(
        "Outstanding DRAM read requests per operand buffer (SCALE-Sim ReadRequestBuffer).", 32,
        positive=True, source=f"{SCALESIM} (scale.cfg)")
    write_request_buffer: int = spec_field(
        "Outstanding DRAM write requests of the output buffer (SCALE-Sim WriteRequestBuffer).", 32,
        positive=True, source=f"{SCALESIM} (scale.cfg)")
    accumulator_bits: int = spec_field("Width of each PE's accumulator.", 32, positive=True,
                                       source="common practice for 8-bit MACs (TPU v1 uses 32-bit accumulators)")

    def __post_init__(self) -> None:
        if self.nm_sparsity and self.dataflow != "ws":
            raise ValueError("systolic.nm_sparsity is supported with dataflow 'ws' only (as in SCALE-Sim v3)")
