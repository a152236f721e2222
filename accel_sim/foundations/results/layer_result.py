"""Per-layer results: timing, work, traffic and action counts, summed to networks with ``+``."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from accel_sim.foundations.results.counts import ActionCount


@dataclass(frozen=True)
class LayerResult:
    """What one layer cost on one accelerator. Energy is applied later (``accel_sim.foundations.energy``)."""

    layer: str
    cycles: int                 # first compute cycle to last output written, stalls included
    compute_cycles: int         # cycles the array would take with an ideal memory
    stall_cycles: int           # cycles the array waited on memory (cycles - compute_cycles)
    macs_dense: int             # MACs of the dense layer
    macs_issued: int            # MACs the datapath actually performed
    peak_macs_per_cycle: int    # MAC units in the datapath (0: a vector layer, no MACs)
    dram_read_bytes: int
    dram_write_bytes: int
    sram_read_bytes: int
    sram_write_bytes: int
    actions: tuple[ActionCount, ...] = ()
    # Model-specific scalar metrics (folds, mapping efficiency, ...), reported as extra columns.
    metrics: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    # Content hashes of the operand tensors the model consumed (accel_sim.foundations.workload.operands),
    # e.g. {"weight_hash": ..., "input_hash": ...}: a run traced to its data.
    operand_hashes: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if self.cycles != self.compute_cycles + self.stall_cycles:
            raise ValueError(f"{self.layer}: cycles {self.cycles} != compute {self.compute_cycles} "
                             f"+ stall {self.stall_cycles}")
        if self.macs_issued > self.macs_dense:
            raise ValueError(f"{self.layer}: issued {self.macs_issued} MACs > dense {self.macs_dense}")

    @property
    def macs_skipped(self) -> int:
        return self.macs_dense - self.macs_issued

    @property
    def utilization(self) -> float:
        """Fraction of MAC-unit cycles that did issued work."""
        return self.macs_issued / (self.cycles * self.peak_macs_per_cycle) if self.cycles and self.peak_macs_per_cycle else 0.0
