"""Bit-serial designs (and Bit Fusion) against DaDianNao on AlexNet conv2-conv5: speed-up and energy vs the papers'
abstracts.

Every design runs as its DNNsim preset (``arch_configs/bitserial_dnnsim_*.yaml``, exact against DNNsim's
``compute_cycles``) on the shipped DNNsim tensor set B (``tests/data/dnnsim_bitserial/B_alexnet_split.yaml``:
AlexNet conv2-conv5, quantized values, each grouped layer as its two halves) with that set's per-layer
precision profile. The published figures are the averages the papers state in their abstracts. Bit Fusion's
figures compare it with Stripes on its own eight quantized benchmarks (``workloads/bitfusion/``, the networks and
per-layer precisions of the authors' simulator): both designs also run those.
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from accel_sim.foundations.workload.layer import Network
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.plot.studies.bit_serial import speedup_per_design
from accel_sim.pipeline.simulate import simulate_many
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = ROOT / "tests" / "data" / "dnnsim_bitserial" / "B_alexnet_split.yaml"
SET_B = "AlexNet conv2-5 (set B)"
# Bit Fusion's benchmarks (hsharma35/bitfusion bitfusion/src/benchmarks/benchmarks.py ``benchlist``), as generated
# by workloads/bitfusion/_generate.py; run on Stripes and Bit Fusion only (the paper's comparison).
BITFUSION_DIR = ROOT / "workloads" / "bitfusion"
BITFUSION_NETWORKS = ("alexnet", "svhn", "cifar10", "lenet5", "vgg7", "resnet18", "rnn", "lstm")
BITFUSION_PAIR = ("stripes", "bitfusion")
BASELINE = "dadiannao"
DESIGNS = (BASELINE, "stripes", "shapeshifter_gs1_cr0", "loom_gs1_psb1", "bitpragmatic_b2_cr0",
           "bitpragmatic_b2_cr1_booth", "laconic_booth", "bittacticalp", "bittacticale", "bitfusion")
CONFIGS = {"bitfusion": "bitserial_bitfusion"}   # designs that are not DNNsim presets: their arch config
# Serial designs whose DNNsim grid (16 tiles x 16 windows x 16 filters x 16 lanes) does 1 x 1-bit products per
# lane and cycle: 1/16 of DaDianNao's peak bit-products (4096 16b x 16b MACs); the others match it.
PEAK_FRACTION = {"loom_gs1_psb1": 1 / 16, "laconic_booth": 1 / 16}
TOLERANCE = 0.20   # issue 40's bar on each published speed-up

STRIPES = "Judd et al., Stripes, MICRO 2016, abstract"
DSTRIPES = "Delmas et al., Dynamic Stripes, arXiv 1706.00504, abstract"
LOOM = "Sharify et al., Loom, DAC 2018 (arXiv 1706.07853v2), abstract"
PRA = "Albericio et al., Bit-Pragmatic, MICRO 2017 (preprint arXiv 1610.06920v1), abstract"
PRA_ICLR = "Albericio et al., Bit-Pragmatic, ICLR 2017 workshop (openreview ryeF7mVFl), abstract"
LACONIC = "Sharify et al., Laconic, ISCA 2019 (preprint arXiv 1805.04513), abstract"
TCL = "Delmas Lascorz et al., Bit-Tactical, ASPLOS 2019 (preprint arXiv 1803.03688), abstract"
BITFUSION = ("Sharma et al., Bit Fusion, ISCA 2018 (preprint arXiv 1712.01507), abstract; its eight benchmarks and "
             "their per-layer bit widths from the authors' simulator, hsharma35/bitfusion "
             "bitfusion/src/benchmarks/benchmarks.py")
# (design, quantity, published, source, metric, reference design): metric "speedup" or "energy" over the
# reference's cycles / energy. One row per published figure.
PUBLISHED = (
    ("stripes", "Stripes speed-up over DaDianNao (mean of its networks)", 1.92, STRIPES, "speedup", BASELINE),
    ("stripes", "Stripes energy efficiency over DaDianNao (57 % more)", 1.57, STRIPES, "energy", BASELINE),
    ("shapeshifter_gs1_cr0", "Dynamic Stripes speed-up over Stripes (41 % more)", 1.41, DSTRIPES, "speedup",
     "stripes"),
    ("loom_gs1_psb1", "Loom (LM-1b) speed-up over a bit-parallel accelerator", 4.38, LOOM, "speedup", BASELINE),
    ("loom_gs1_psb1", "Loom energy efficiency over a bit-parallel accelerator", 3.54, LOOM, "energy", BASELINE),
    ("bitpragmatic_b2_cr0", "Pragmatic (straightforward variant) speed-up over DaDianNao", 2.6, PRA, "speedup",
     BASELINE),
    ("bitpragmatic_b2_cr0", "Pragmatic energy efficiency over DaDianNao (28 % more)", 1.28, PRA, "energy",
     BASELINE),
    ("bitpragmatic_b2_cr1_booth", "Pragmatic (improved cross-lane synchronisation) speed-up over DaDianNao",
     3.1, PRA, "speedup", BASELINE),
    ("bitpragmatic_b2_cr1_booth", "Pragmatic speed-up over DaDianNao", 4.3, PRA_ICLR, "speedup", BASELINE),
    ("laconic_booth", "Laconic (128-wire weight interface) speed-up over a 2K-wire bit-parallel accelerator",
     2.3, LACONIC, "speedup", BASELINE),
    ("laconic_booth", "Laconic (128 wires) energy efficiency over the 2K-wire bit-parallel accelerator", 2.13,
     LACONIC, "energy", BASELINE),
    ("laconic_booth", "Laconic (1K-wire weight interface) speed-up over a 2K-wire bit-parallel accelerator",
     15.4, LACONIC, "speedup", BASELINE),
    ("laconic_booth", "Laconic (1K wires) energy efficiency over the 2K-wire bit-parallel accelerator", 1.95,
     LACONIC, "energy", BASELINE),
    ("bittacticalp", "Bit-Tactical TCLp speed-up over an equivalent data-parallel accelerator", 5.05, TCL,
     "speedup", BASELINE),
    ("bittacticalp", "Bit-Tactical TCLp energy efficiency over the data-parallel accelerator", 2.98, TCL,
     "energy", BASELINE),
    ("bitfusion", "Bit Fusion speed-up over Stripes at Stripes' area and frequency (its eight quantized networks)",
     2.6, BITFUSION, "speedup", "stripes"),
    ("bitfusion", "Bit Fusion energy reduction over Stripes (its eight quantized networks)", 3.9, BITFUSION,
     "energy", "stripes"),
)
# Published figures over Bit Fusion's own benchmarks: compared with the geometric mean of the per-network ratios
# (the authors' figure script averages its per-benchmark bars so: bitfusion-generate-graphs.ipynb,
# ``add_geomean=True``).
ON_BITFUSION_NETWORKS = ("bitfusion",)
COLUMNS = ["workload", "reference", "design", "layer", "activation_bits", "weight_bits", "cycles", "energy_pj",
           "speedup", "energy_efficiency", "speedup_equal_peak"]


def run_designs(designs: tuple[str, ...], layers: tuple[str, ...] | None = None) -> pd.DataFrame:
    """Cycles and energy of every design on every layer of set B, relative to DaDianNao, plus an ``all`` row
    per design (sums)."""
    network = load_workload(str(WORKLOAD))
    if layers is not None:
        network = Network(network.name, tuple(layer for layer in network.layers if layer.name in layers))
    names = (BASELINE, *[d for d in designs if d != BASELINE])
    runs = simulate_many([load_arch(CONFIGS.get(d, f"bitserial_dnnsim_{d}")) for d in names], network)
    rows = []
    for design, run in zip(names, runs):
        for layer, result, energy in zip(network.layers, run.layers, run.energy):
            rows.append({"design": design, "layer": layer.name, "activation_bits": layer.activation_bits,
                         "weight_bits": layer.weight_bits, "cycles": result.cycles, "energy_pj": energy.total_pj})
        rows.append({"design": design, "layer": "all", "activation_bits": None, "weight_bits": None,
                     "cycles": sum(r.cycles for r in run.layers), "energy_pj": sum(e.total_pj for e in run.energy)})
    frame = pd.DataFrame(rows)
    base = frame[frame.design == BASELINE].set_index("layer")
    frame["speedup"] = [base.cycles[l] / c for l, c in zip(frame.layer, frame.cycles)]
    frame["energy_efficiency"] = [base.energy_pj[l] / e for l, e in zip(frame.layer, frame.energy_pj)]
    frame["speedup_equal_peak"] = [s / PEAK_FRACTION[d] if d in PEAK_FRACTION else math.nan
                                   for d, s in zip(frame.design, frame.speedup)]
    frame["workload"], frame["reference"] = SET_B, BASELINE
    return frame[COLUMNS]


def run_bitfusion_networks(networks: tuple[str, ...]) -> pd.DataFrame:
    """Stripes and Bit Fusion on each of Bit Fusion's benchmarks: one row per (network, design), the network's
    totals, with Bit Fusion's cycles and energy relative to Stripes'."""
    rows = []
    for name in networks:
        network = load_workload(str(BITFUSION_DIR / f"{name}.yaml"))
        runs = simulate_many([load_arch(CONFIGS.get(d, f"bitserial_dnnsim_{d}")) for d in BITFUSION_PAIR], network)
        totals = [(sum(r.cycles for r in run.layers), sum(e.total_pj for e in run.energy)) for run in runs]
        for design, (cycles, energy) in zip(BITFUSION_PAIR, totals):
            rows.append({"workload": network.name, "reference": BITFUSION_PAIR[0], "design": design, "layer": "all",
                         "activation_bits": None, "weight_bits": None, "cycles": cycles, "energy_pj": energy,
                         "speedup": totals[0][0] / cycles, "energy_efficiency": totals[0][1] / energy,
                         "speedup_equal_peak": math.nan})
    return pd.DataFrame(rows, columns=COLUMNS)


def geomean(values) -> float:
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def comparisons(frame: pd.DataFrame) -> tuple[Comparison, ...]:
    """One row per published figure whose design (and reference design) ran: on set B, or for the designs of
    ``ON_BITFUSION_NETWORKS`` the geometric mean over Bit Fusion's benchmarks that ran."""
    total = frame[(frame.layer == "all") & (frame.workload == SET_B)].set_index("design")
    own = frame[(frame.workload != SET_B) & (frame.layer == "all")]
    rows = []
    for design, quantity, published, source, metric, reference in PUBLISHED:
        column = "speedup" if metric == "speedup" else "energy_efficiency"
        if design in ON_BITFUSION_NETWORKS:
            mine = own[(own.design == design) & (own.reference == reference)]
            if len(mine):
                rows.append(Comparison(f"{quantity}; simulated: config {CONFIGS[design]}, geometric mean over "
                                       f"{len(mine)} of its benchmarks (workloads/bitfusion)", "x", published,
                                       geomean(mine[column]), source, TOLERANCE))
            continue
        if design not in total.index or reference not in total.index:
            continue
        column = "cycles" if metric == "speedup" else "energy_pj"
        simulated = float(total[column][reference] / total[column][design])
        preset = f"config {CONFIGS[design]}" if design in CONFIGS else f"DNNsim preset {design}"
        rows.append(Comparison(f"{quantity}; simulated: {preset} on AlexNet conv2-5 (set B)", "x",
                               published, simulated, source, TOLERANCE))
    return tuple(rows)


def readme_text(frame: pd.DataFrame, rows: tuple[Comparison, ...]) -> str:
    """The study's README; every number in it comes from ``frame`` and ``rows``."""
    setb = frame[frame.workload == SET_B]
    total = setb[setb.layer == "all"].set_index("design")
    layers = setb[(setb.layer != "all") & (setb.design == BASELINE)]
    profile = ", ".join(f"{l} {a}/{w}" for l, a, w in zip(layers.layer, layers.activation_bits, layers.weight_bits))
    table = "\n".join(f"| {d} | {total.cycles[d]:,} | {total.speedup[d]:.2f}x | {total.energy_efficiency[d]:.2f}x |"
                      for d in total.index)
    within = sum(1 for r in rows if r.within_tolerance)

    def speed(design: str) -> str:
        return f"{total.speedup[design]:.2f}x" if design in total.index else "n/a"

    def over_stripes(design: str) -> str:
        if design not in total.index or "stripes" not in total.index:
            return "n/a"
        return f"{total.cycles['stripes'] / total.cycles[design]:.2f}x"

    def peak(design: str) -> str:
        return f"{total.speedup_equal_peak[design]:.2f}x" if design in total.index else "n/a"
    return readme(__name__, profile=profile, table=table, within=within, rows=len(rows),
                  stripes=speed("stripes"), loom=speed("loom_gs1_psb1"), loom_peak=peak("loom_gs1_psb1"),
                  laconic=speed("laconic_booth"), laconic_peak=peak("laconic_booth"),
                  pra0=speed("bitpragmatic_b2_cr0"), pra1=speed("bitpragmatic_b2_cr1_booth"),
                  tclp=speed("bittacticalp"), tcle=speed("bittacticale"), ss=speed("shapeshifter_gs1_cr0"),
                  bitfusion=speed("bitfusion"), bitfusion_stripes=over_stripes("bitfusion"),
                  **bitfusion_summary(frame))


def bitfusion_summary(frame: pd.DataFrame) -> dict[str, str]:
    """The README's table of Bit Fusion's benchmarks (Stripes and Bit Fusion) and its means."""
    own = frame[(frame.workload != SET_B) & (frame.design == "bitfusion")]
    stripes = frame[(frame.workload != SET_B) & (frame.design == "stripes")].set_index("workload")
    table = "\n".join(f"| {w} | {stripes.cycles[w]:,} | {c:,} | {s:.2f}x | {e:.2f}x |"
                       for w, c, s, e in zip(own.workload, own.cycles, own.speedup, own.energy_efficiency))
    if own.empty:
        return dict(bf_table="| (not run) | | | | |", bf_geomean="n/a", bf_mean="n/a", bf_energy="n/a")
    return dict(bf_table=table, bf_geomean=f"{geomean(own.speedup):.2f}x", bf_mean=f"{own.speedup.mean():.2f}x",
                bf_energy=f"{geomean(own.energy_efficiency):.2f}x")


@study("bit-serial", "Bit-serial designs (Stripes, Dynamic Stripes, Loom, Pragmatic, Laconic, Bit-Tactical) "
       "over DaDianNao on AlexNet conv2-5, Bit Fusion over Stripes on its benchmarks, vs the papers' published "
       "speed-ups", cpu_s=4.2, writes_operands=False)
def bit_serial_study(designs: tuple[str, ...] = DESIGNS, layers: tuple[str, ...] | None = None,
                     networks: tuple[str, ...] = BITFUSION_NETWORKS) -> StudyOutput:
    frame = run_designs(designs, layers)
    if "bitfusion" in designs:
        frame = pd.concat([frame, run_bitfusion_networks(networks)], ignore_index=True)
    rows = comparisons(frame)
    figure = speedup_per_design(frame[frame.workload == SET_B], rows)
    return StudyOutput(results=frame, figure=figure, readme=readme_text(frame, rows), comparisons=rows)
