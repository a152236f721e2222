"""The sparsity-support ladder on one real layer (issue 6).

One PE array (``arch_configs/pe_array.yaml``), one switch (``pe_array.sparsity_support``):
none / memory / gating / skipping / reassignment, on VGG-16 conv4_2 (28 x 28 x 512 ->
512, 3 x 3, input density 0.51 from the shipped workload), with its weights pruned to
densities 1.0 .. 0.05 at four granularities: unstructured (magnitude), 2:4 (N:M along
the reduction, density 0.5 only), 4 x 4 blocks and whole filters (filter, kept as zero filters in
the full-size tensor: ``compact`` off, so the ladder shows what each rung does with them). The 2:4
weights are read through the N:M decoder (``weight_format: nm``); the others through CSR.
"""
from __future__ import annotations

import dataclasses

import pandas as pd

from accel_sim.foundations.config.schema import choices_of
from accel_sim.pipeline.catalog import load_arch
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.pipeline.plot.studies.sparsity_ladder import ladder_figure
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.studies.template import readme
from accel_sim.studies.registry import StudyOutput, study
from accel_sim.foundations.workload.layer import Layer, NMSparsity, OperandSource
from accel_sim.foundations.workload.loader import load_workload

DENSITIES = (1.0, 0.8, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.05)
PATTERNS = ("unstructured", "2:4", "block", "filter")
COLUMNS = ["support", "pattern", "density", "cycles", "energy_pj", "dram_read_bytes"]
BLOCK = 4


def ladder_layer(base: Layer, pattern: str, density: float) -> Layer:
    """``base`` with its weights pruned to ``density`` at ``pattern`` granularity."""
    if pattern == "2:4":
        return dataclasses.replace(base, weight_sparsity=NMSparsity(2, 4), weight_density=1.0,
                                   operands=OperandSource(weight_pattern="nm"))
    return dataclasses.replace(base, weight_sparsity=None, weight_density=density,
                               operands=OperandSource(weight_pattern=pattern, block=BLOCK, compact=False))


def support_levels(arch: str = "pe_array") -> tuple[str, ...]:
    """The rungs of the ladder: every value ``pe_array.sparsity_support`` accepts, in the config's order."""
    return choices_of(load_arch(arch).pe_array, "sparsity_support")


def ladder_points(layer: Layer, densities=DENSITIES, patterns=PATTERNS, arch: str = "pe_array",
                  levels: tuple[str, ...] | None = None) -> pd.DataFrame:
    levels = support_levels(arch) if levels is None else levels
    specs = {(level, fmt): load_arch(arch, {"pe_array.sparsity_support": level, "pe_array.weight_format": fmt})
             for level in levels for fmt in ("csr", "nm")}
    tables = {name: load_energy_table(name) for name in {spec.energy_table for spec in specs.values()}}
    rows = []
    for pattern in patterns:
        for density in ((0.5,) if pattern == "2:4" else densities):
            pruned = ladder_layer(layer, pattern, density)
            for level in levels:
                spec = specs[(level, "nm" if pattern == "2:4" else "csr")]
                run = simulate_layer(spec, pruned, tables[spec.energy_table])  # each table loaded once
                rows.append({"support": level, "pattern": pattern, "density": density, "cycles": run.result.cycles,
                             "energy_pj": run.energy.total_pj, "dram_read_bytes": run.result.dram_read_bytes})
    return pd.DataFrame(rows, columns=COLUMNS)


def memory_crossover(frame: pd.DataFrame) -> float | None:
    """Highest swept density at which compressed storage (``memory``) moves fewer DRAM bytes than dense
    (``none``), unstructured weights; None if it never does."""
    part = frame[frame.pattern == "unstructured"].pivot_table(index="density", columns="support",
                                                             values="dram_read_bytes")
    if not {"memory", "none"} <= set(part.columns):
        return None
    below = part.index[part["memory"] < part["none"]]
    return float(below.max()) if len(below) else None


@study("sparsity-ladder", "One PE array, five levels of sparsity support (VGG-16 conv4_2)", cpu_s=6.4,
       writes_operands=False)
def sparsity_ladder(densities=DENSITIES, patterns=PATTERNS, layer_name: str = "conv4_2",
                    workload: str = "vgg16") -> StudyOutput:
    base = next(layer for layer in load_workload(workload).layers if layer.name == layer_name)
    frame = ladder_points(base, densities, patterns)
    fig = ladder_figure(frame, f"Sparsity-support ladder, {workload} {layer_name}")
    density = memory_crossover(frame)
    crossover = ("here compressed storage moves fewer bytes than dense only up to a density of "
                 f"{density:g} of those swept" if density is not None else "here it never moves fewer bytes")
    text = readme(__name__, workload=workload, layer=layer_name, input_density=f"{base.input_density:g}",
                  crossover=crossover)
    return StudyOutput(results=frame, figure=fig, readme=text)
