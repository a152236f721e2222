"""EIE speed-up vs number of PEs (1..256) with padding fraction and load-balance efficiency."""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.plot.studies.eie_pe_scaling import scaling
from accel_sim.pipeline.simulate import simulate_many
from accel_sim.studies.eie_common import EIE_PAPER, benchmark_network, eie_arch
from accel_sim.studies.template import readme
from accel_sim.studies.registry import Comparison, StudyOutput, study

PE_COUNTS = tuple(2**i for i in range(9))  # 1..256 (brief)


def pe_scaling_frame(layers: tuple[str, ...] | None = None, pe_counts: tuple[int, ...] = PE_COUNTS) -> pd.DataFrame:
    """One row per (layer, PEs). Speed-up is over the smallest PE count, on compute cycles (DRAM
    spills of PE counts whose slices overflow the per-PE SRAM are left out of the timing)."""
    # dram_spill, not eie.yaml's grow_on_chip: the column spill_bytes shows the PE counts whose slices
    # do not fit the 128 KB / 32 KB SRAMs (left out of the timing, see the README); one arch per PE count
    network = benchmark_network(layers)
    runs = simulate_many(tuple(eie_arch(n_pes=n_pes, sram_overflow="dram_spill") for n_pes in pe_counts), network)
    rows = []
    for i, layer in enumerate(network.layers):
        for n_pes, run in zip(pe_counts, runs):
            r = run.layers[i]
            rows.append({"layer": layer.name, "n_pes": n_pes, "cycles": r.compute_cycles,
                         "padding_fraction": r.metrics["padding_fraction"],
                         "load_efficiency": r.metrics["load_efficiency"],
                         "spill_bytes": int(r.metrics["spill_bytes"])})
    frame = pd.DataFrame(rows)
    base = frame.groupby("layer")["cycles"].transform("first")
    frame["speedup"] = base / frame["cycles"]
    return frame


@study("eie-pe-scaling", "EIE: speed-up vs number of PEs (1..256), padding and load balance", cpu_s=7.7)
def eie_pe_scaling(layers: tuple[str, ...] | None = None, pe_counts: tuple[int, ...] = PE_COUNTS) -> StudyOutput:
    frame = pe_scaling_frame(layers, pe_counts)
    lo, hi = min(pe_counts), max(pe_counts)
    first = frame[frame["n_pes"] == lo]
    last = frame[frame["n_pes"] == hi]
    comparisons = (
        Comparison(f"change of the mean padding fraction from {lo} to {hi} PEs (published: falls as PEs grow)",
                   "fraction", None, float(last["padding_fraction"].mean() - first["padding_fraction"].mean()),
                   EIE_PAPER),
        Comparison(f"change of the mean load efficiency from {lo} to {hi} PEs (published: gets worse as PEs grow)",
                   "fraction", None, float(last["load_efficiency"].mean() - first["load_efficiency"].mean()),
                   EIE_PAPER),
        Comparison(f"mean speed-up at {hi} PEs over {lo} (linear: {hi // lo}; published: a figure, no number in "
                   "the text)", "x", None, float(last["speedup"].mean()), EIE_PAPER),
    )
    text = readme(__name__)
    return StudyOutput(frame, scaling(frame), text, comparisons)
