"""Chip area from the area tables alone, per component, against EIE's and SCNN's published breakdowns."""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.plot.studies.area_breakdown import breakdown_bars
from accel_sim.pipeline.simulate import chip_area
from accel_sim.studies.template import readme
from accel_sim.studies.registry import Comparison, StudyOutput, study

AREA_TOLERANCE = 0.20   # issue 20: chip area within 20 % of the published one
EIE_SOURCE = "Han et al., EIE, ISCA 2016, Table II (one PE, 45 nm; 64 PEs: 40.8 mm2)"
SCNN_SOURCE = "Parashar et al., SCNN, ISCA 2017, Table 4 (one PE, 16 nm)"
EIE_PES, SCNN_PES = 64, 64
EIE_CHIP_MM2, SCNN_CHIP_MM2 = 40.8, 7.9
# Published per-PE area by module (mm2) and the model components each module covers.
EIE_MODULES = (  # Table II, area by module (um2): the five modules plus filler cells sum to 638,024 um2
    ("activation queue", 0.000758, ("act_queue",)),
    ("pointer read", 0.121849, ("pointer_read",)),
    ("sparse-matrix read", 0.469412, ("spmat_read",)),
    ("arithmetic unit", 0.003110, ("arithmetic",)),
    ("activation read/write", 0.018934, ("act_rw",)),
    ("filler cells", 0.023961, ()),
)
SCNN_MODULES = (  # Table 4 (brief): per PE, total 0.123 mm2
    ("IARAM + OARAM", 0.031, ("iaram", "oaram")),
    ("weight FIFO", 0.004, ("weight_fifo",)),
    ("multiplier array", 0.008, ("multipliers",)),
    ("scatter crossbar", 0.026, ("crossbar",)),
    ("accumulator buffers", 0.036, ("accumulator_banks",)),
    ("other", 0.019, ()),
)
SCNN_NODE_NM = 16  # paper Table 3: 16 nm


def _rows(chip: str, modules, area_mm2: dict[str, float], pes: int) -> list[dict[str, object]]:
    rows = []
    for module, published, parts in modules:
        simulated = sum(area_mm2.get(p, 0.0) for p in parts) / pes if parts else None
        rows.append({"chip": chip, "module": module, "published_mm2": published, "simulated_mm2": simulated,
                     "components": "+".join(parts) or "(not modelled)"})
    return rows


@study("area-breakdown",
        "Chip area from component tables: EIE (45 nm) and SCNN (16 nm) per-module breakdowns", cpu_s=1.3)
def area_breakdown() -> StudyOutput:
    eie = load_arch("eie")
    scnn = load_arch("scnn", overrides={"technology_node": SCNN_NODE_NM})
    eie_area, scnn_area = chip_area(eie), chip_area(scnn)
    frame = pd.DataFrame(_rows("EIE (45 nm)", EIE_MODULES, dict(eie_area.area_mm2), EIE_PES)
                         + _rows(f"SCNN ({SCNN_NODE_NM} nm)", SCNN_MODULES, dict(scnn_area.area_mm2), SCNN_PES))
    comparisons = [
        Comparison("EIE chip area (64 PEs, 45 nm)", "mm2", EIE_CHIP_MM2, eie_area.total_mm2, EIE_SOURCE, AREA_TOLERANCE),
        Comparison(f"SCNN chip area (64 PEs, {SCNN_NODE_NM} nm)", "mm2", SCNN_CHIP_MM2, scnn_area.total_mm2,
                   SCNN_SOURCE, AREA_TOLERANCE),
    ]
    for row in frame.itertuples():
        if row.simulated_mm2 is not None and not pd.isna(row.simulated_mm2):
            source = EIE_SOURCE if row.chip.startswith("EIE") else SCNN_SOURCE
            comparisons.append(Comparison(f"{row.chip} {row.module} area per PE", "mm2", row.published_mm2,
                                          float(row.simulated_mm2), source))
    text = readme(__name__, eie_area_mm2=f"{eie_area.total_mm2:.1f}", scnn_area_mm2=f"{scnn_area.total_mm2:.2f}")
    return StudyOutput(frame, breakdown_bars(frame), text, tuple(comparisons))
