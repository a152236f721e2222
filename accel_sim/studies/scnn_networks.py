"""SCNN vs DCNN and DCNN-opt on pruned AlexNet, GoogLeNet (inception modules) and VGG-16 (conv layers).

Reproduces the paper's per-layer / per-network comparison (Parashar et al., ISCA 2017, Fig. 8):
cycles and energy of each layer on the three designs, the same 64 PEs x 16 multipliers at the
same clock, with network totals (``layer == "all"``).
"""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.plot.studies.scnn import gains_over_dcnn
from accel_sim.pipeline.simulate import reused_layer_runs
from accel_sim.studies.template import readme
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.scnn_energy import (EVERY_DESIGN, SCNN_ONLY, SHIPPED_ORDER, breakdown, breakdown_markdown,
                                           buffered_archs, buffered_energy, component_totals, dram_order_rows,
                                           implied_per_product_scale, min_traffic_runs,
                                           partial_sums_rows, per_product_energy, tiling_penalty, with_min_traffic)
from accel_sim.studies.scnn_common import (ABLATION, DESIGN_CONFIGS, DESIGN_LABELS, ENERGY_NOTES_SOURCE,
                                           NETWORK_SOURCE, PUBLISHED_DCNN_OPT_ENERGY_RATIO,
                                           PUBLISHED_DENSE_ENERGY, PUBLISHED_ENERGY_RATIO, PUBLISHED_TILED_LAYERS,
                                           PUBLISHED_TILING_PENALTY, expected_busiest_bank,
                                           PUBLISHED_NETWORK_SPEEDUP, PUBLISHED_SOURCE, PUBLISHED_SPEEDUP,
                                           conv_network, designs_frame, overrides_text, run_archs, run_variants)

DESIGNS = ("dcnn", "dcnn_opt", "scnn")
ABLATION_LAYERS = 3   # conv layers per network the ablation runs on (documented in the README)
COLUMNS = ["network", "layer", "design", "cycles", "energy_pj", "steps", "bank_conflict_cycles"]


def network_runs(networks: tuple[str, ...], designs: tuple[str, ...], max_layers: int | None,
                 buffered: dict[str, dict[str, float]] | None = None) -> dict[str, pd.DataFrame]:
    """Per network: every design's per-layer frame (:func:`run_designs`, all columns). ``buffered`` (a dict to
    fill): also per network :func:`buffered_dense_energy`, the buffered dense designs run beside the designs
    (one pass over the layers: each layer's operands and outputs are made once)."""
    runs = {}
    for name in networks:
        archs = {d: load_arch(DESIGN_CONFIGS[d]) for d in designs}
        frames = run_archs(conv_network(name, max_layers), archs if buffered is None else {**archs, **buffered_archs()})
        runs[name] = designs_frame({d: frames[d] for d in designs})
        if buffered is not None:
            buffered[name] = buffered_energy(frames)
    return runs


def network_frame(networks: tuple[str, ...], runs: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """``results.csv``: :data:`COLUMNS` per (network, layer, design) plus network totals, from
    :func:`network_runs`."""
    frames = []
    for name in networks:
        per_layer = runs[name].copy()
        per_layer.insert(0, "network", name)
        totals = per_layer.groupby("design", sort=False)[COLUMNS[3:]].sum().reset_index()
        totals.insert(0, "network", name)
        totals.insert(1, "layer", "all")
        frames += [per_layer[COLUMNS], totals[COLUMNS]]
    return pd.concat(frames, ignore_index=True)


def conflict_share(frame: pd.DataFrame) -> dict[str, float]:
    """Per network: SCNN's bank-conflict cycles over its PE busy cycles (steps + conflict cycles)."""
    totals = frame[(frame.layer == "all") & (frame.design == "scnn")].set_index("network")
    busy = totals.steps + totals.bank_conflict_cycles
    return {n: float(totals.bank_conflict_cycles[n] / busy[n]) for n in totals.index if busy[n]}


def ratios(frame: pd.DataFrame) -> pd.DataFrame:
    """Per network: DCNN cycles / SCNN cycles and DCNN energy / design energy (network totals)."""
    totals = frame[frame.layer == "all"].pivot(index="network", columns="design", values=["cycles", "energy_pj"])
    out = pd.DataFrame(index=totals.index)
    for design in totals["cycles"].columns:
        out[f"speedup_{design}"] = totals["cycles"]["dcnn"] / totals["cycles"][design]
        out[f"energy_gain_{design}"] = totals["energy_pj"]["dcnn"] / totals["energy_pj"][design]
    return out


def ablation_frame(networks: tuple[str, ...], max_layers: int | None,
                   variants: tuple[tuple[str, dict], ...] = ABLATION) -> pd.DataFrame:
    """One row per choice flipped from ``arch_configs/scnn.yaml`` (first row: the config itself):
    SCNN's speed-up and energy gain over DCNN on the first ``max_layers`` conv layers of each network."""
    settings = (("paper setting (arch_configs/scnn.yaml)", {}),) + tuple(variants)
    frames = {name: run_variants(conv_network(name, max_layers), settings) for name in networks}
    rows = []
    for i, (label, overrides) in enumerate(settings):
        row: dict[str, object] = {"choice": label, "overrides": overrides_text(overrides)}
        for name in networks:
            dcnn, result = frames[name][0], frames[name][1][i]
            row[f"speedup_{name}"] = dcnn.cycles.sum() / result.cycles.sum()
            row[f"energy_gain_{name}"] = dcnn.energy_pj.sum() / result.energy_pj.sum()
        row["mean_speedup"] = sum(row[f"speedup_{n}"] for n in networks) / len(networks)
        row["mean_energy_gain"] = sum(row[f"energy_gain_{n}"] for n in networks) / len(networks)
        rows.append(row)
    return pd.DataFrame(rows)


def ablation_markdown(table: pd.DataFrame, networks: tuple[str, ...]) -> str:
    head = "| choice flipped | " + " | ".join(f"{n} speed-up" for n in networks) + \
        " | mean speed-up | mean energy gain |"
    lines = [head, "|---" * (len(networks) + 3) + "|"]
    for r in table.itertuples(index=False):
        cells = " | ".join(f"{getattr(r, f'speedup_{n}'):.2f}x" for n in networks)
        lines.append(f"| {r.choice} | {cells} | {r.mean_speedup:.2f}x | {r.mean_energy_gain:.2f}x |")
    return "\n".join(lines)


def headline_comparisons(gains: pd.DataFrame, designs: tuple[str, ...]) -> list[Comparison]:
    """The paper's speed-ups and energy gains over DCNN next to the networks' (``gains``: :func:`ratios`)."""
    comparisons = []
    if "scnn" in designs:
        comparisons += [
            Comparison("SCNN speed-up over DCNN, mean of the networks", "x", PUBLISHED_SPEEDUP,
                       float(gains["speedup_scnn"].mean()), PUBLISHED_SOURCE, tolerance=0.20),
            Comparison("SCNN energy reduction over DCNN, mean of the networks", "x", PUBLISHED_ENERGY_RATIO,
                       float(gains["energy_gain_scnn"].mean()), PUBLISHED_SOURCE, tolerance=0.25)]
        comparisons += [Comparison(f"SCNN speed-up over DCNN, {n}", "x", PUBLISHED_NETWORK_SPEEDUP.get(n),
                                   float(v), NETWORK_SOURCE if n in PUBLISHED_NETWORK_SPEEDUP else
                                   "no per-network value published for this network", tolerance=0.20)
                        for n, v in gains["speedup_scnn"].items()]
    if "dcnn_opt" in designs:
        comparisons.append(Comparison("DCNN-opt energy reduction over DCNN, mean of the networks", "x",
                                      PUBLISHED_DCNN_OPT_ENERGY_RATIO, float(gains["energy_gain_dcnn_opt"].mean()),
                                      ENERGY_NOTES_SOURCE))
    return comparisons


def energy_tables(networks: tuple[str, ...], designs: tuple[str, ...], max_layers: int | None,
                  runs: dict[str, pd.DataFrame], buffered: dict[str, dict[str, float]]
                  ) -> tuple[dict[str, pd.DataFrame], list[Comparison], str]:
    """Where the energy gap is: ``energy_breakdown``, ``dram_tile_order``, ``temporal_tiling`` and (with DCNN-opt)
    ``dense_partial_sums`` tables, their comparison rows and README sections (``runs``: :func:`network_runs`)."""
    totals = {name: component_totals(runs[name]) for name in networks}
    tables = {"energy_breakdown": pd.DataFrame([row for name in networks for row in breakdown(totals[name], name)])}
    scnn_layers = pd.concat([runs[name][runs[name].design == "scnn"] for name in networks])
    sections = [energy_gap_text(tables["energy_breakdown"], totals, float(scnn_layers.products_issued.sum()))]
    reruns = {name: min_traffic_runs(conv_network(name, max_layers), runs[name], designs) for name in networks}
    tables["dram_tile_order"] = orders = pd.DataFrame(
        [row for name in networks for row in dram_order_rows(name, runs[name], reruns[name])])
    tiled = {name: tiling_penalty(name, runs[name][runs[name].design == "scnn"]) for name in networks}
    tables["temporal_tiling"] = tiling = pd.concat([with_min_traffic(tiled[name], reruns[name]) for name in networks],
                                                   ignore_index=True)
    whole = max_layers is None and set(networks) == {"alexnet", "googlenet", "vgg16"}
    comparisons = [Comparison("SCNN layers run in more than one pass (temporal tiles through DRAM), all networks",
                              "layers", PUBLISHED_TILED_LAYERS if whole else None, float(len(tiling)),
                              ENERGY_NOTES_SOURCE)]
    if "dcnn_opt" in designs:
        tables["dense_partial_sums"] = psums = pd.DataFrame(
            [partial_sums_rows(name, totals[name], buffered[name]) for name in networks])
        sections.append(partial_sums_text(psums))
    if len(tiling):
        comparisons.append(Comparison("SCNN energy penalty of temporal tiling, mean over the tiled layers "
                                      "(energy / energy in one pass - 1)", "fraction", PUBLISHED_TILING_PENALTY,
                                      float(tiling.penalty.mean()), ENERGY_NOTES_SOURCE))
        sections.append(tiling_text(tiling, totals))
    comparisons.append(Comparison("SCNN energy reduction over DCNN, mean of the networks, with "
                                  "scnn.dram_tile_order: min_traffic on every design (not shipped)", "x",
                                  PUBLISHED_ENERGY_RATIO,
                                  float(orders[orders.order == EVERY_DESIGN].energy_gain_scnn.mean()),
                                  PUBLISHED_SOURCE))
    if len(tiling):
        comparisons.append(Comparison("SCNN energy penalty of temporal tiling, mean over the tiled layers, with "
                                      "scnn.dram_tile_order: min_traffic (not shipped)", "fraction",
                                      PUBLISHED_TILING_PENALTY, float(tiling.penalty_min_traffic.mean()),
                                      ENERGY_NOTES_SOURCE))
    sections.append(dram_order_text(orders, tiling))
    return tables, comparisons, "\n".join(sections)   # each section ends with a newline: a blank line between


@study("scnn-networks", "SCNN vs DCNN / DCNN-opt on pruned AlexNet, GoogLeNet and VGG-16 (cycles, energy)", cpu_s=18.2)
def scnn_networks(networks: tuple[str, ...] = ("alexnet", "googlenet", "vgg16"), designs: tuple[str, ...] = DESIGNS,
                  max_layers: int | None = None, ablation: bool = True,
                  ablation_layers: int | None = ABLATION_LAYERS) -> StudyOutput:
    with reused_layer_runs(shared=True):   # the ablation's DCNN and paper setting run the networks' first layers again
        return networks_output(networks, designs, max_layers, ablation, ablation_layers)


def networks_output(networks: tuple[str, ...], designs: tuple[str, ...], max_layers: int | None, ablation: bool,
                    ablation_layers: int | None) -> StudyOutput:
    """:func:`scnn_networks`' output."""
    buffered: dict[str, dict[str, float]] = {}   # the dense designs' partial sums in the buffer (energy only)
    runs = network_runs(networks, designs, max_layers, buffered if {"dcnn", "dcnn_opt", "scnn"} <= set(designs)
                        else None)
    frame = network_frame(networks, runs)
    gains = ratios(frame)
    fig = gains_over_dcnn(gains, designs, DESIGN_LABELS)
    comparisons = headline_comparisons(gains, designs)
    tables, energy_text = {}, ""
    if {"dcnn", "scnn"} <= set(designs):
        tables, energy_comparisons, energy_text = energy_tables(networks, designs, max_layers, runs, buffered)
        comparisons += energy_comparisons
    subset = min(filter(None, (max_layers, ablation_layers)), default=None)
    if ablation and {"dcnn", "scnn"} <= set(designs):
        tables["ablation"] = ablation_frame(networks, subset)
    share = conflict_share(frame)
    scnn_arch = load_arch(DESIGN_CONFIGS["scnn"]).scnn
    products, banks = scnn_arch.multipliers_per_pe, scnn_arch.accumulator_banks
    busiest = expected_busiest_bank(products, banks)
    text = readme(__name__, products=products, banks=banks, busiest=f"{busiest:.2f}",
                  rate_percent=f"{100 / busiest:.0f}", energy=energy_text,
                  ablation=ablation_section(tables["ablation"], networks, subset) if "ablation" in tables else "",
                  conflicts=", ".join(f"{n} {100 * v:.0f} %" for n, v in share.items()))
    return StudyOutput(frame, fig, text, tuple(comparisons), tables)


def ablation_section(table: pd.DataFrame, networks: tuple[str, ...], subset: int | None) -> str:
    """README section on ``ablation.csv`` (``subset``: the conv layers per network it runs on; None: all)."""
    return readme("scnn_networks_ablation", subset=subset or "all", table=ablation_markdown(table, networks))

def partial_sums_text(table: pd.DataFrame) -> str:
    """README paragraph on ``dense_partial_sums.csv``: the DCNN-side hypothesis, tested against both published
    gains."""
    return readme("scnn_networks_partial_sums", gain_scnn_buffer=f"{table.gain_scnn_buffer.mean():.2f}",
                  gain_scnn=f"{table.gain_scnn.mean():.2f}", published_scnn=PUBLISHED_ENERGY_RATIO,
                  gain_opt_buffer=f"{table.gain_dcnn_opt_buffer.mean():.2f}",
                  gain_opt=f"{table.gain_dcnn_opt.mean():.2f}", published_opt=PUBLISHED_DCNN_OPT_ENERGY_RATIO)

def tiling_text(tiling: pd.DataFrame, totals: dict[str, pd.DataFrame]) -> str:
    """README paragraph on ``temporal_tiling.csv``: the tiled layers' energy penalty next to the paper's, and each
    network's gain were its tiled layers run in one pass."""
    gains = []
    for name, part in tiling.groupby("network", sort=False):
        dcnn, scnn = float(totals[name].loc["dcnn", "energy_pj"]), float(totals[name].loc["scnn", "energy_pj"])
        one_pass = scnn - float(part.energy_pj.sum()) + float(part.energy_one_pass_pj.sum())
        gains.append(f"{name} {dcnn / scnn:.2f}x -> {dcnn / one_pass:.2f}x")
    return readme("scnn_networks_tiling", layers=len(tiling), networks=", ".join(sorted(set(tiling.network))),
                  penalty_min=f"{100 * tiling.penalty.min():.0f}", penalty_max=f"{100 * tiling.penalty.max():.0f}",
                  penalty_mean=f"{100 * tiling.penalty.mean():.0f}", published_tiled_layers=PUBLISHED_TILED_LAYERS,
                  published_penalty=f"{100 * PUBLISHED_TILING_PENALTY:.0f}", gains=", ".join(gains))

def energy_gap_text(table: pd.DataFrame, totals: dict[str, pd.DataFrame], products: float) -> str:
    """The README section on ``energy_breakdown.csv``: where SCNN's energy goes next to DCNN's, and the
    per-product energy the paper's 2.3x implies (``products``: SCNN's products over the networks)."""
    points = [(float(t.loc["dcnn", "energy_pj"]), float(t.loc["scnn", "energy_pj"]), per_product_energy(t))
              for t in totals.values()]
    scale = implied_per_product_scale(points, PUBLISHED_ENERGY_RATIO)
    free = sum(d / (s - p) for d, s, p in points) / len(points)
    opt = [float(t.loc["dcnn", "energy_pj"] / t.loc["dcnn_opt", "energy_pj"]) for t in totals.values()
           if "dcnn_opt" in t.index]
    scatter_pj = sum(p for _, _, p in points) / products   # per product beyond the multiply
    dram = table[table.component == "dram"]
    multiply_pj = sum(float(t.loc["scnn", "energy_multipliers_pj"]) for t in totals.values()) / products
    opt_text = "" if not opt else readme(
        "scnn_networks_energy_gap_opt", gain=f"{sum(opt) / len(opt):.2f}", published=PUBLISHED_DCNN_OPT_ENERGY_RATIO,
        closeness="close to the paper's share" if abs(sum(opt) / len(opt) / PUBLISHED_DCNN_OPT_ENERGY_RATIO - 1) <= 0.1
        else "off the paper's share too").rstrip("\n")
    needed = "" if scale is None else readme("scnn_networks_energy_gap_needed", per_product=f"{scale * scatter_pj:.2f}",
                                             multiply_pj=f"{multiply_pj:.2f}").rstrip("\n")
    return readme("scnn_networks_energy_gap", breakdown=breakdown_markdown(table), dcnn_opt=opt_text,
                  scatter_pj=f"{scatter_pj:.2f}", multiply_pj=f"{multiply_pj:.2f}", free=f"{free:.2f}",
                  published_energy_ratio=PUBLISHED_ENERGY_RATIO, published_dense_energy=f"{PUBLISHED_DENSE_ENERGY:.2f}",
                  scale=f"{scale:.2f} of the table's energy" if scale is not None else
                  "less than nothing, so they are not the whole gap", needed=needed,
                  on_chip_gain=f"{dram.gain_scnn_without.mean():.2f}", dram_gain=f"{dram.dcnn_over_scnn.mean():.2f}")

def dram_order_text(orders: pd.DataFrame, tiling: pd.DataFrame) -> str:
    """README section on ``dram_tile_order.csv``: the shipped DRAM tiling against the least-traffic one."""
    lines = ["| network | order | SCNN speed-up | SCNN energy gain | DCNN-opt energy gain | SCNN DRAM MB |",
             "|---|---|---|---|---|---|"]
    for r in orders.to_dict("records"):
        opt = f"{r['energy_gain_dcnn_opt']:.2f}x" if "energy_gain_dcnn_opt" in r else "-"
        lines.append(f"| {r['network']} | {r['order']} | {r['speedup_scnn']:.2f}x | {r['energy_gain_scnn']:.2f}x | "
                     f"{opt} | {r['scnn_dram_bytes'] / 1e6:.1f} |")
    for label in (SHIPPED_ORDER, EVERY_DESIGN, SCNN_ONLY):
        part = orders[orders.order == label]
        lines.append(f"| mean | {label} | {part.speedup_scnn.mean():.2f}x | {part.energy_gain_scnn.mean():.2f}x | "
                     + (f"{part.energy_gain_dcnn_opt.mean():.2f}x" if "energy_gain_dcnn_opt" in part else "-")
                     + " | - |")
    cut = ", ".join(f"{r.layer} {r.temporal_tiles:.0f} x 1 -> {r.passes_min_traffic} "
                    f"({100 * r.penalty:.0f} % -> {100 * r.penalty_min_traffic:.0f} %)"
                    for r in tiling.itertuples() if r.passes_min_traffic != f"{r.temporal_tiles:.0f} x 1")
    penalty = readme("scnn_networks_dram_order_penalty", shipped=f"{100 * tiling.penalty.mean():.0f}",
                     min_traffic=f"{100 * tiling.penalty_min_traffic.mean():.0f}",
                     published=f"{100 * PUBLISHED_TILING_PENALTY:.0f}", cut=cut or "none",
                     once=f"{100 * tiling.penalty_operands_once.mean():.0f}").rstrip("\n") if len(tiling) else ""
    return readme("scnn_networks_dram_order", table="\n".join(lines), penalty=penalty)
