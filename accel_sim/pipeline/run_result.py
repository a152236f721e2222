"""A network run: per-layer results plus their energy, and the one bridge to pandas.

Rows are plain dicts (:meth:`RunResult.layer_rows`, :meth:`RunResult.summary_row`); the frames
are built from them, and pandas is imported only when a frame is asked for (a command-line run
writes its report without it: ``accel_sim.pipeline.report.files``)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.energy.area import AreaBreakdown
from accel_sim.foundations.energy.cost import EnergyBreakdown
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.foundations.workload.layer import Network

if TYPE_CHECKING:
    import pandas as pd

# Columns every model fills, in report order (units in the names).
LAYER_COLUMNS = (
    "layer", "cycles", "compute_cycles", "stall_cycles", "macs_dense", "macs_issued", "macs_skipped",
    "utilization", "energy_pj", "dram_read_bytes", "dram_write_bytes", "sram_read_bytes",
    "sram_write_bytes", "time_s",
)
ADDITIVE_COLUMNS = tuple(c for c in LAYER_COLUMNS if c not in ("layer", "utilization"))


@dataclass(frozen=True)
class RunResult:
    arch: ArchBase
    network: Network
    layers: tuple[LayerResult, ...]
    energy: tuple[EnergyBreakdown, ...]
    # The chip's area and leakage, and each layer's static (leakage) energy; None / () when the
    # family lists no blocks (no area columns then). energy_pj stays the dynamic energy.
    area: AreaBreakdown | None = None
    static: tuple[EnergyBreakdown, ...] = ()

    def layer_rows(self) -> list[dict[str, object]]:
        """One dict per layer: the standard columns, energy by component, model metrics, hashes."""
        rows = []
        statics = self.static or (None,) * len(self.layers)
        for result, energy, static in zip(self.layers, self.energy, statics):
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
            if static is not None:
                row["static_energy_pj"] = static.total_pj
            row.update(dict(result.metrics))
            row.update(dict(result.operand_hashes))
            rows.append(row)
        return rows

    def summary_row(self) -> dict[str, object]:
        """The whole network: additive columns summed (as pandas sums a frame column: integers
        exactly, floats by numpy with missing values as 0), utilisation recomputed."""
        rows = self.layer_rows()
        total = {}
        for column in row_columns(rows):
            if column in ADDITIVE_COLUMNS or column.startswith("energy_") or column == "static_energy_pj":
                values = [row.get(column) for row in rows]
                if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
                    total[column] = sum(int(v) for v in values)
                else:  # a float column; a missing value counts 0 in its place (pandas' nansum)
                    total[column] = float(np.array([0.0 if v is None else v for v in values], dtype=np.float64).sum())
        peak = next((r.peak_macs_per_cycle for r in self.layers if r.peak_macs_per_cycle), 0)  # vector layers: 0
        total["utilization"] = float(total["macs_issued"]) / float(total["cycles"] * peak) if total["cycles"] and peak else 0.0
        head = {"arch": self.arch.name, "workload": self.network.name, "layers": len(self.layers)}
        return {**head, **total, **self.area_columns()}

    def area_columns(self) -> dict[str, float]:
        """The chip's area (total and per component) and leakage power; empty without an area."""
        if self.area is None:
            return {}
        return {"area_mm2": self.area.total_mm2, "leakage_power_uw": self.area.total_leakage_uw,
                "technology_node_nm": self.arch.technology_node,
                **{f"area_{name}_mm2": mm2 for name, mm2 in self.area.area_mm2.items()}}

    def layers_frame(self) -> pd.DataFrame:
        """One row per layer (:meth:`layer_rows`) as a DataFrame."""
        import pandas as pd
        return pd.DataFrame(self.layer_rows())

    def summary_frame(self) -> pd.DataFrame:
        """One row for the whole network (:meth:`summary_row`) as a DataFrame."""
        import pandas as pd
        return pd.DataFrame([self.summary_row()])


def row_columns(rows: list[dict[str, object]]) -> list[str]:
    """Every key of ``rows`` in order of first appearance (the columns of ``pandas.DataFrame(rows)``)."""
    return list(dict.fromkeys(key for row in rows for key in row))
