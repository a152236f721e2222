"""Storage of every sparse format vs density, value width and index width, on a real layer.

The layer (default AlexNet conv3, 384 filters x 2304 = 885 K weights, stored rows = filters,
columns = ``C x R x S`` as in ``accel-sim storage``) is magnitude-pruned to each density
(``layer_operands``: seeded Gaussian weights, unstructured pattern), encoded once per
format, and costed at each value width. Relative-index / zero-run formats (eie, rle, scnn)
are also run at each index width asked for. The question: below which density does each
format beat dense storage, and which format is smallest where (the seed's claim: with
8-bit values at 50 % density CSR gains nothing, its indices cancel the saving).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from accel_sim.foundations.compress.formats import FORMATS
from accel_sim.pipeline.plot.studies.storage_formats import bits_per_element
from accel_sim.foundations.workload.storage import STORAGE_PARTS, stored_matrix
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme
from accel_sim.foundations.workload.loader import load_workload

DEFAULT_LAYER = ("alexnet", "conv3")
DEFAULT_DENSITIES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
DEFAULT_VALUE_BITS = (4, 8, 16)  # the widths the issue asks for (int4 / int8 / 16-bit fixed point)
# Index widths of the relative-index formats: 4 bits is EIE's (Han et al. ISCA 2016), 8 bits
# Deep Compression's conv-layer width (Han et al. ICLR 2016, Sec. 2).
DEFAULT_RELATIVE_INDEX_BITS = (4, 8)
RELATIVE_INDEX_PARAMETER = {"eie": "index_bits", "rle": "run_bits", "scnn": "run_bits"}
# N:M storage only holds N:M-pruned weights (the Ampere study covers it); "compressed" is the
# shared implementation of csr / csc, listed under those names.
SKIPPED_FORMATS = ("nm", "compressed")


def _variants(relative_index_bits: tuple[int, ...]) -> list[tuple[str, str, dict]]:
    """(label, format, from_dense keywords) of every format variant."""
    variants = []
    for name in FORMATS:
        if name in SKIPPED_FORMATS:
            continue
        extra = {"pointer_bits": None} if name == "eie" else {}
        if name in RELATIVE_INDEX_PARAMETER:
            variants += [(f"{name} ({bits}-bit index)", name, {RELATIVE_INDEX_PARAMETER[name]: bits, **extra})
                         for bits in relative_index_bits]
        else:
            variants.append((name, name, extra))
    return variants


def storage_sweep(layer_ref: tuple[str, str] = DEFAULT_LAYER, densities: tuple[float, ...] = DEFAULT_DENSITIES,
                  value_bits: tuple[int, ...] = DEFAULT_VALUE_BITS,
                  relative_index_bits: tuple[int, ...] = DEFAULT_RELATIVE_INDEX_BITS) -> pd.DataFrame:
    """One row per (format variant, density, value width): bits by part, per element, per non-zero."""
    network, layer_name = layer_ref
    (layer,) = [layer for layer in load_workload(network).layers if layer.name == layer_name]
    rows = []
    for density in densities:
        matrix = stored_matrix(dataclasses.replace(layer, weight_density=density))
        for label, name, params in _variants(tuple(relative_index_bits)):
            encoded = FORMATS[name].from_dense(matrix, **params)
            for bits in value_bits:
                breakdown = encoded.storage(bits)
                row = {"network": network, "layer": layer_name, "format": label, "format_name": name,
                       "density": density, "value_bits": bits, "nnz": encoded.nnz, "elements": encoded.size}
                row.update({part: getattr(breakdown, part) for part in STORAGE_PARTS})
                row["total_bits"] = breakdown.total_bits
                row["bits_per_element"] = breakdown.total_bits / encoded.size
                row["bits_per_nonzero"] = breakdown.total_bits / encoded.nnz if encoded.nnz else np.nan
                row["ratio_vs_dense"] = encoded.size * bits / breakdown.total_bits
                rows.append(row)
    frame = pd.DataFrame(rows)
    smallest = frame.groupby(["density", "value_bits"])["total_bits"].transform("min")
    frame["smallest"] = frame["total_bits"] == smallest
    return frame


def break_even_density(frame: pd.DataFrame, label: str, bits: int) -> float:
    """Highest swept density at which ``label`` is still smaller than dense storage (0 if never)."""
    part = frame[(frame.format == label) & (frame.value_bits == bits)]
    wins = part[part.ratio_vs_dense > 1.0]
    return float(wins.density.max()) if len(wins) else 0.0


def _break_even_text(frame: pd.DataFrame) -> str:
    widths = sorted(frame.value_bits.unique())
    lines = ["| format | " + " | ".join(f"{b}-bit values" for b in widths) + " |", "|---|" + "---|" * len(widths)]
    for label in frame.format.unique():
        if label != "dense":
            lines.append(f"| {label} | " + " | ".join(f"{break_even_density(frame, label, b):g}" for b in widths) + " |")
    return "\n".join(lines)


def _winners_text(frame: pd.DataFrame) -> str:
    lines = ["| value bits | density | smallest format | bits / element | dense bits / element |",
             "|---|---|---|---|---|"]
    for (bits, density), part in frame[frame.smallest].groupby(["value_bits", "density"]):
        lines.append(f"| {bits} | {density:g} | {', '.join(part.format)} | {part.bits_per_element.iloc[0]:.2f} | {bits} |")
    return "\n".join(lines)


@study("storage-formats", "Storage of every sparse format vs density, value and index width (where each wins)",
       cpu_s=5.7, writes_operands=False)
def storage_formats(layer_ref: tuple[str, str] = DEFAULT_LAYER, densities: tuple[float, ...] = DEFAULT_DENSITIES,
                    value_bits: tuple[int, ...] = DEFAULT_VALUE_BITS,
                    relative_index_bits: tuple[int, ...] = DEFAULT_RELATIVE_INDEX_BITS) -> StudyOutput:
    frame = storage_sweep(layer_ref, densities, value_bits, relative_index_bits)
    comparisons = []
    if 8 in value_bits and 0.5 in densities:
        csr = frame[(frame.format == "csr") & (frame.value_bits == 8) & (frame.density == 0.5)].iloc[0]
        comparisons.append(Comparison(
            "CSR, 8-bit values, 50 % density: stored size / dense size (published: no gain, the indices cancel "
            "the saving)", "x", 1.0, float(1 / csr.ratio_vs_dense),
            "lowprec_compression_energy.md (Deep Compression, Han et al. ICLR 2016)"))
    widths = ", ".join(str(b) for b in value_bits)
    text = readme(
        __name__,
        network=layer_ref[0],
        layer=layer_ref[1],
        widths=widths,
        index_widths=', '.join(str(b) for b in relative_index_bits),
        break_even=_break_even_text(frame),
        winners=_winners_text(frame),
    )
    return StudyOutput(results=frame, figure=bits_per_element(frame), readme=text, comparisons=tuple(comparisons))
