"""What compression buys: one network as dense, pruned, filter-pruned, 2:4 and quantized variants on a dense design and a
sparse one, side by side (the main job, ``accel-sim run`` without ``--arch`` / ``--workload``).

The variants change only the workload fields a user would write (``weight_density``, ``weight_sparsity`` with
``weight_pattern: nm``, ``weight_pattern: filter``, ``quantized_weight_bits``); every number comes from
:func:`accel_sim.pipeline.simulate.simulate` (which compacts filter-pruned layers, so a dense design runs the smaller
layer: :mod:`accel_sim.foundations.workload.structured`).
A variant a design refuses (weight-only quantization on a family without it) is a row saying why.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import Network, NMSparsity, VectorLayer
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.pipeline.run_result import RunResult
from accel_sim.pipeline.simulate import simulate

# The variants, each at the same weight count kept where it prunes, so that they compare like for like:
#   pruned: half the weights removed by magnitude, anywhere (unstructured; Han et al., "Learning both Weights
#           and Connections for Efficient Neural Networks", NeurIPS 2015, arXiv:1506.02626)
#   filter-pruned: half the filters of the first convolution of every residual block removed (Li et al., "Pruning
#           Filters for Efficient ConvNets", ICLR 2017, Sec. 4.3: ResNets prune the first layer of each residual
#           block, whose output no shortcut reads); the block's second convolution loses the matching input
#           channels, so any design runs the smaller dense layers
#   2:4:    two non-zeros in every four consecutive weights, density 0.5 (NVIDIA A100 sparse tensor cores;
#           Mishra et al., "Accelerating Sparse Deep Neural Networks", arXiv:2104.08378)
#   int4:   weights stored and moved as 4-bit integers, math at the arch's word (weight-only quantization)
PRUNED_DENSITY = 0.5
NM_PATTERN = NMSparsity(2, 4)
QUANTIZED_BITS = 4
VARIANTS = ("dense", "pruned", "filter-pruned", "2:4", "int4")


def first_of_block(name: str) -> bool:
    """The first convolution of a torchvision residual block (``layerX_Y_conv1``): Li et al.'s pruned layers."""
    return name.startswith("layer") and name.endswith("_conv1")

READ_LINE = ("read: speed-up and energy are against the dense network on the first design; macs_skipped > 0 "
             "means the hardware skipped zero weights. A saving needs hardware that exploits it: unstructured "
             "pruning needs zero skipping (--arch pe_array_skipping), 2:4 an N:M array, int4 weight-only "
             "quantization (--arch ampere_a100); filter pruning needs none (the layers shrink).")


def compression_variants(network: Network) -> dict[str, Network]:
    """``network`` as each of :data:`VARIANTS` (vector layers unchanged)."""
    def variant(name: str, only=lambda layer_name: True, **fields: object) -> Network:
        def change(layer: object) -> object:
            if isinstance(layer, VectorLayer) or not fields or not only(layer.name):
                return layer
            extra = dict(fields)
            pattern = extra.pop("weight_pattern", None)
            if pattern is not None:
                extra["operands"] = dataclasses.replace(layer.operands, weight_pattern=pattern)
            return dataclasses.replace(layer, **extra)
        return dataclasses.replace(network, name=f"{network.name} {name}",
                                   layers=tuple(change(layer) for layer in network.layers))
    return {"dense": network, "pruned": variant("pruned", weight_density=PRUNED_DENSITY),
            "filter-pruned": variant("filter-pruned", first_of_block, weight_density=PRUNED_DENSITY, weight_pattern="filter"),
            "2:4": variant("2:4", weight_sparsity=NM_PATTERN, weight_pattern="nm"),
            "int4": variant("int4", quantized_weight_bits=QUANTIZED_BITS)}


@dataclass(frozen=True)
class ComparisonRow:
    """One variant on one design: its network totals, or why the design refused it."""

    variant: str
    design: str
    cycles: int | None = None
    energy_pj: float | None = None
    dram_bytes: int | None = None
    macs_skipped: int | None = None
    refused: str = ""
    run: RunResult | None = dataclasses.field(default=None, compare=False, repr=False)  # the whole run


def compare_compression(network: Network, designs: Sequence[ArchSpec]) -> list[ComparisonRow]:
    """Every variant of ``network`` (:func:`compression_variants`) on every design, variant by variant."""
    rows = []
    variants = compression_variants(network)
    for name, variant in variants.items():
        for arch in designs:
            try:
                run = simulate(arch, variant)
                total = run.summary_row()
            except InputError as err:
                rows.append(ComparisonRow(name, arch.name, refused=err.problems[0].message))
                continue
            rows.append(ComparisonRow(name, arch.name, int(total["cycles"]), float(total["energy_pj"]),
                                      int(total["dram_read_bytes"] + total["dram_write_bytes"]),
                                      int(total["macs_skipped"]), run=run))
    return rows


def comparison_frame_rows(rows: Sequence[ComparisonRow]) -> list[dict[str, object]]:
    """The rows as plain records with the speed-up and energy ratio against the first row (dense, first design)."""
    base = rows[0]
    out = []
    for row in rows:
        done = row.cycles is not None
        out.append({"variant": row.variant, "design": row.design, "cycles": row.cycles,
                    "speedup": base.cycles / row.cycles if done else None,
                    "energy_pj": row.energy_pj, "energy_ratio": row.energy_pj / base.energy_pj if done else None,
                    "dram_bytes": row.dram_bytes, "macs_skipped": row.macs_skipped, "refused": row.refused})
    return out


def comparison_table(rows: Sequence[ComparisonRow]) -> str:
    """The side-by-side table ``accel-sim run`` prints: one row per variant, one group of columns per design
    (cycles, speed-up and energy against the dense network on the first design, DRAM traffic, MACs skipped),
    the reasons for refused cells, and :data:`READ_LINE`."""
    records = comparison_frame_rows(rows)
    designs = list(dict.fromkeys(r["design"] for r in records))
    columns = ("cycles", "speed-up", "energy_uJ", "energy", "DRAM_MB", "macs_skipped")
    header = ["variant"] + [f"{c}" for _ in designs for c in columns]
    lines, reasons = [], {}
    for variant in dict.fromkeys(r["variant"] for r in records):
        line = [variant]
        for design in designs:
            r = next(x for x in records if x["variant"] == variant and x["design"] == design)
            if r["cycles"] is None:
                reasons.setdefault(" ".join(str(r["refused"]).split()), []).append(f"{variant} on {design}")
                line += ["refused", "", "", "", "", ""]
                continue
            line += [f"{r['cycles']:,}", f"{r['speedup']:.2f}x", f"{r['energy_pj'] / 1e6:,.1f}",
                     f"{100 * r['energy_ratio']:.0f}%", f"{r['dram_bytes'] / 1e6:.1f}", f"{r['macs_skipped']:,}"]
        lines.append(line)
    widths = [max(len(cell) for cell in column) for column in zip(header, *lines)]
    group = [sum(widths[1 + i * len(columns):1 + (i + 1) * len(columns)]) + len(columns) - 1
             for i in range(len(designs))]
    text = [" ".join([" " * widths[0]] + [design.center(w, "-") for design, w in zip(designs, group)])]
    text += [" ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths)))
             for line in [header, *lines]]
    text += [f"refused ({', '.join(where)}): {reason}" for reason, where in reasons.items()]
    return "\n".join([line.rstrip() for line in text] + [READ_LINE])
