"""PE granularity: SCNN's 1,024 multipliers as 64 PEs of 4x4, 16 PEs of 8x8 or 4 PEs of 16x16
(the paper's Fig. 11), on GoogLeNet's inception modules at the pruned densities."""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import reused_layer_runs, simulate
from accel_sim.pipeline.plot.studies.scnn import granularity
from accel_sim.studies.template import readme
from accel_sim.studies.registry import StudyOutput, study
from accel_sim.studies.scnn_common import conv_network

# (PE grid side, F = I); 64 x 16 = 16 x 64 = 4 x 256 = 1,024 multipliers.
GRANULARITIES = ((8, 4), (4, 8), (2, 16))
BASE_PES = 64
ACCUMULATOR_BANK_ENTRIES = 32  # paper Table 3: 32 entries per bank


def granularity_overrides(side: int, width: int) -> dict:
    """Same total accumulator, IARAM and OARAM storage as the 64-PE design, split over fewer PEs; A = 2 x F x I
    banks of 32 entries, as the paper sizes them (Table 3), so the accumulator storage follows the banks."""
    scale_per_pe = BASE_PES // (side * side)
    return {"scnn.pe_rows": side, "scnn.pe_cols": side, "scnn.mult_f": width, "scnn.mult_i": width,
            "scnn.accumulator_banks": 2 * width * width, "scnn.accumulator_entries": ACCUMULATOR_BANK_ENTRIES,
            "scnn.iaram_size": 10 * 1024 * scale_per_pe, "scnn.oaram_size": 10 * 1024 * scale_per_pe,
            "scnn.ppu_outputs_per_cycle": width}


@study("scnn-pe-granularity", "SCNN PE granularity: 1,024 multipliers as 64x(4x4), 16x(8x8) or 4x(16x16)", cpu_s=6.1)
def scnn_pe_granularity(max_layers: int | None = None) -> StudyOutput:
    network = conv_network("googlenet", max_layers)
    rows = []
    for side, width in GRANULARITIES:
        arch = load_arch("scnn", granularity_overrides(side, width))
        with reused_layer_runs(shared=True):   # in reproduce all: 64 x (4 x 4) is scnn-networks' GoogLeNet, read back
            frame = simulate(arch, network).layers_frame()
        rows.append({"pes": side * side, "multipliers_per_pe": width * width, "cycles": int(frame.cycles.sum()),
                     "energy_pj": float(frame.energy_pj.sum()),
                     "intra_pe_utilization": float((frame.intra_pe_utilization * frame.cycles).sum()
                                                   / frame.cycles.sum()),
                     "barrier_idle_fraction": float((frame.barrier_idle_fraction * frame.cycles).sum()
                                                    / frame.cycles.sum())})
    result = pd.DataFrame(rows)
    fig = granularity(result)
    text = readme(__name__)
    return StudyOutput(result, fig, text, ())
