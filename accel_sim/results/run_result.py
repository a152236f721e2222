"""A network run: per-layer results plus their energy, and the one bridge to pandas."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from accel_sim.arch.spec import ArchSpec
from accel_sim.energy.cost import EnergyBreakdown
from accel_sim.results.layer_result import LayerResult
from accel_sim.workload.layer import Network

# Columns every model fills, in report order (units in the names).
LAYER_COLUMNS = (
    "layer", "cycles", "compute_cycles", "stall_cycles", "macs_dense", "macs_issued", "macs_skipped",
    "utilization", "energy_pj", "dram_read_bytes", "dram_write_bytes", "sram_read_bytes",
    "sram_write_bytes", "time_s",
)
ADDITIVE_COLUMNS = tuple(c for c in LAYER_COLUMNS if c not in ("layer", "utilization"))


@dataclass(frozen=True)
class RunResult:
    arch: ArchSpec
    network: Network
    layers: tuple[LayerResult, ...]
    energy: tuple[EnergyBreakdown, ...]

    def layers_frame(self) -> pd.DataFrame:
        """One row per layer: the standard columns, energy by component, model metrics."""
        rows = []
        for result, energy in zip(self.layers, self.energy):
            row = {
                "layer": result.layer, "cycles": result.cycles, "compute_cycles": result.compute_cycles,
                "stall_cycles": result.stall_cycles, "macs_dense": result.macs_dense,
                "macs_issued": result.macs_issued, "macs_skipped": result.macs_skipped,
                "utilization": result.utilization, "energy_pj": energy.total_pj,
                "dram_read_bytes": result.dram_read_bytes, "dram_write_bytes": result.dram_write_bytes,
                "sram_read_bytes": result.sram_read_bytes, "sram_write_bytes": result.sram_write_bytes,
                "time_s": result.cycles / self.arch.clock,
            }
            row.update({f"energy_{c}_pj": e for c, e in energy.by_component_pj.items()})
            row.update(dict(result.metrics))
            row.update(dict(result.operand_hashes))
            rows.append(row)
        return pd.DataFrame(rows)

    def summary_frame(self) -> pd.DataFrame:
        """One row for the whole network: additive columns summed, utilisation recomputed."""
        frame = self.layers_frame()
        total = {c: frame[c].sum() for c in frame.columns if c in ADDITIVE_COLUMNS or c.startswith("energy_")}
        peak = self.layers[0].peak_macs_per_cycle
        total["utilization"] = total["macs_issued"] / (total["cycles"] * peak) if total["cycles"] else 0.0
        head = {"arch": self.arch.name, "workload": self.network.name, "layers": len(self.layers)}
        return pd.DataFrame([{**head, **total}])
