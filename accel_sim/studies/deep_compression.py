"""Deep Compression's pipeline per layer: pruning -> weight sharing -> Huffman coding.

For each layer of the pruned LeNet-300-100, LeNet-5, AlexNet and VGG-16 workloads
(``workloads/*.yaml``: per-layer densities of Han et al. NIPS 2015, code and index widths of
Han et al. ICLR 2016 in ``weight_bits`` / ``index_bits``):

1. pruning: the layer's weights from ``layer_operands`` (seeded Gaussian, magnitude-pruned to
   the layer's density);
2. quantization: k-means weight sharing with linear initialisation and ``2**weight_bits``
   shared weights (code 0 = the exact zero of fillers), stored in relative-index CSC with
   ``index_bits``-bit relative row indices and filler entries (Deep Compression Sec. 2;
   ``EIEInterleavedCSC`` with one PE), column pointers sized to fit, plus the codebook of
   32-bit floats;
3. Huffman coding of the code stream and of the relative-index stream (canonical Huffman;
   the entropy bound is reported too).

Dense baseline: 32-bit floats, as in the paper. Ratios are dense / compressed.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from accel_sim.foundations.compress.formats.eie import EIEInterleavedCSC
from accel_sim.foundations.workload.storage import huffman_sizes, stored_nonzeros
from accel_sim.foundations.compress.quantization.kmeans import quantize_kmeans
from accel_sim.pipeline.plot.studies.deep_compression import ratios_per_layer
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme
from accel_sim.foundations.workload.layer import Layer
from accel_sim.foundations.workload.loader import load_workload

DEFAULT_NETWORKS = ("lenet_300_100", "lenet5", "alexnet", "vgg16")
FLOAT_BITS = 32  # dense baseline and codebook entries: 32-bit floats (Han et al. ICLR 2016)
DEEP_COMPRESSION_PES = 1  # one relative-index CSC per layer (no PE interleaving)

# Published whole-network compression ratios, Han, Mao and Dally, "Deep Compression", ICLR 2016
# (Table 1 for pruning + quantization + Huffman; Tables 2-5 "compress rate" totals for pruning +
# quantization, as percent of the dense size). Not in the shared brief: quoted from the paper.
PUBLISHED = {
    "lenet_300_100": {"pruned_quantized": 100 / 3.1, "huffman": 40.0, "source": "Han et al. ICLR 2016, Tables 1-2"},
    "lenet5": {"pruned_quantized": 100 / 3.05, "huffman": 39.0, "source": "Han et al. ICLR 2016, Tables 1, 3"},
    "alexnet": {"pruned_quantized": 27.0, "huffman": 35.0, "source": "Han et al. ICLR 2016, Tables 1, 4"},
    "vgg16": {"pruned_quantized": 31.0, "huffman": 49.0, "source": "Han et al. ICLR 2016, Tables 1, 5"},
}
# "Huffman coding saves 20 % - 30 % of network storage" (Han et al. ICLR 2016, Sec. 4; the brief):
# compared with the middle of the range.
PUBLISHED_HUFFMAN_SAVING = (0.20, 0.30)


def compress_layer(layer: Layer, network: str) -> dict:
    """One row of the pipeline for one layer (the layer needs ``weight_bits`` and ``index_bits``)."""
    if layer.weight_bits is None or layer.index_bits is None:
        raise ValueError(f"{network} {layer.name}: the deep-compression study needs weight_bits and index_bits")
    shape, columns, rows, values = stored_nonzeros(layer)   # the stored matrix's non-zeros: no dense copy
    elements, nnz = math.prod(shape), int(values.size)
    bits, index_bits = layer.weight_bits, layer.index_bits
    pruned = EIEInterleavedCSC.from_nonzeros(shape, columns, rows, values, n_pes=DEEP_COMPRESSION_PES,
                                             index_bits=index_bits, pointer_bits=None)
    quantized = _weight_shared(pruned, bits)
    breakdown = quantized.storage(bits)
    codebook_bits = 2**bits * FLOAT_BITS
    sizes = huffman_sizes(quantized, bits, breakdown.total_bits)
    entries = sum(pe.n_entries for pe in quantized.pes)
    row = {
        "network": network, "layer": layer.name, "elements": elements, "nnz": nnz, "density": nnz / elements,
        "weight_bits": bits, "index_bits": index_bits, "filler_entries": quantized.n_padding,
        "dense_bits": elements * FLOAT_BITS,
        "pruned_bits": pruned.storage(FLOAT_BITS).total_bits,
        "pruned_quantized_bits": breakdown.total_bits + codebook_bits,
        "huffman_bits": sizes["huffman_bits"] + codebook_bits,
        "entropy_bits": sizes["entropy_bits"] + codebook_bits,
        "codebook_bits": codebook_bits, "pointer_bits": breakdown.pointer_bits,
        "huffman_weight_bits_per_entry": sizes["huffman_values_bits"] / entries if entries else np.nan,
        "huffman_index_bits_per_entry": sizes["huffman_index_bits"] / entries if entries else np.nan,
    }
    return row


def _weight_shared(pruned: EIEInterleavedCSC, bits: int) -> EIEInterleavedCSC:
    """The pruned matrix's format with every stored weight replaced by its k-means code: what encoding
    ``quantize_kmeans(matrix).values`` gives, without the full-size code matrix. The codes are non-zero
    exactly where the weights are (code 0 is the exact zero, also of fillers), so the entries, fillers
    and pointers are the pruned format's; and the clustering reads only the multiset of non-zero weights
    (1-D Lloyd on sorted values; each weight's code is a function of its value), which the stored values
    hold, fillers being zeros."""
    stored = np.concatenate([pe.values for pe in pruned.pes])
    codes = quantize_kmeans(stored, n_clusters=2**bits).values if stored.size else stored.astype(np.int64)
    ends = np.cumsum([pe.n_entries for pe in pruned.pes])
    pes = tuple(dataclasses.replace(pe, values=codes[end - pe.n_entries:end]) for pe, end in zip(pruned.pes, ends))
    return dataclasses.replace(pruned, pes=pes)


def compression_table(networks: tuple[str, ...] = DEFAULT_NETWORKS) -> pd.DataFrame:
    """Per-layer rows and a ``total`` row per network, with the ratios of each stage."""
    frames = []
    for name in networks:
        net = load_workload(name)
        layers = pd.DataFrame([compress_layer(layer, name) for layer in net.layers])
        summed = {c: layers[c].sum() for c in layers.columns if c.endswith("_bits") and c not in
                  ("weight_bits", "index_bits") or c in ("elements", "nnz", "filler_entries")}
        summed.pop("huffman_weight_bits_per_entry", None)
        summed.pop("huffman_index_bits_per_entry", None)
        total = {"network": name, "layer": "total", **summed, "density": summed["nnz"] / summed["elements"]}
        frames.append(pd.concat([layers, pd.DataFrame([total])], ignore_index=True))
    frame = pd.concat(frames, ignore_index=True)
    for stage in ("pruned", "pruned_quantized", "huffman"):
        frame[f"{stage}_ratio"] = frame["dense_bits"] / frame[f"{stage}_bits"]
    frame["huffman_saving"] = 1 - frame["huffman_bits"] / frame["pruned_quantized_bits"]
    return frame


@study("deep-compression", "Deep Compression pipeline per layer (prune, weight-share, Huffman) vs Han et al. 2016",
       cpu_s=8.4, writes_operands=False)
def deep_compression(networks: tuple[str, ...] = DEFAULT_NETWORKS) -> StudyOutput:
    frame = compression_table(tuple(networks))
    totals = frame[frame.layer == "total"].set_index("network")
    comparisons = []
    for name, total in totals.iterrows():
        if name not in PUBLISHED:
            continue
        published = PUBLISHED[name]
        low, high = PUBLISHED_HUFFMAN_SAVING
        comparisons += [
            Comparison(f"{name}: pruning + quantization compression ratio", "x", published["pruned_quantized"],
                       float(total.pruned_quantized_ratio), published["source"]),
            Comparison(f"{name}: + Huffman compression ratio", "x", published["huffman"], float(total.huffman_ratio),
                       published["source"]),
            Comparison(f"{name}: storage saved by Huffman (published: {low:.0%}-{high:.0%}, middle shown)",
                       "fraction", (low + high) / 2, float(total.huffman_saving), "Han et al. ICLR 2016, Sec. 4")]
    gap_lines = "\n".join(
        f"- {name}: pruning + quantization {total.pruned_quantized_ratio:.1f}x (published "
        f"{PUBLISHED[name]['pruned_quantized']:.0f}x), + Huffman {total.huffman_ratio:.1f}x (published "
        f"{PUBLISHED[name]['huffman']:.0f}x), Huffman saves {100 * total.huffman_saving:.1f} %."
        for name, total in totals.iterrows() if name in PUBLISHED)
    text = readme(
        __name__,
        networks=', '.join(networks),
        gap_lines=gap_lines,
    )
    return StudyOutput(results=frame, figure=ratios_per_layer(frame, PUBLISHED), readme=text,
                       comparisons=tuple(comparisons))
