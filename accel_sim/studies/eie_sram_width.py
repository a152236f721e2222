"""EIE sparse-matrix SRAM reads and read energy vs SRAM width (fewer, costlier reads)."""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.plot.studies.eie_sram_width import reads_and_energy
from accel_sim.studies.eie_common import EIE_PAPER, timing_sweep
from accel_sim.studies.template import readme
from accel_sim.studies.registry import Comparison, StudyOutput, study

WIDTHS = (8, 16, 32, 64, 128, 256, 512)  # bits: 1..64 entries of 8 bits per read
PUBLISHED_BEST_WIDTH_BITS = 64           # brief: total read energy is least at 64 bits


def sram_width_frame(layers: tuple[str, ...] | None = None, widths: tuple[int, ...] = WIDTHS) -> pd.DataFrame:
    """One row per (layer, width): reads, read energy (pJ) of the sparse-matrix SRAM. The width does not
    change what is stored: each layer is encoded once and only timed and costed per width."""
    rows = [{"layer": layer.name, "width_bits": width, "spmat_reads": int(run.result.metrics["spmat_reads"]),
             "read_energy_pj": run.energy.by_component_pj["spmat_read"]}
            for layer, width, run in timing_sweep("spmat_sram_width", widths, layers)]
    return pd.DataFrame(rows)


@study("eie-sram-width", "EIE: sparse-matrix SRAM read count and read energy vs SRAM width", cpu_s=5.9)
def eie_sram_width(layers: tuple[str, ...] | None = None, widths: tuple[int, ...] = WIDTHS) -> StudyOutput:
    frame = sram_width_frame(layers, widths)
    total = frame.groupby("width_bits")[["spmat_reads", "read_energy_pj"]].sum()
    best = int(total["read_energy_pj"].idxmin())
    comparisons = (Comparison("sparse-matrix SRAM width with the least total read energy", "bits",
                              PUBLISHED_BEST_WIDTH_BITS, float(best), f"{EIE_PAPER}: minimum at 64 bits"),)
    text = readme(__name__, widths=', '.join(map(str, widths)), best=best)
    return StudyOutput(frame, reads_and_energy(total), text, comparisons)
