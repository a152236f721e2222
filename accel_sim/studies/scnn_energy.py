"""Where SCNN's energy gain over DCNN comes from (issue 15): the energy of every component of every design,
next to DCNN's, and what a published gain implies for SCNN's per-product scatter and accumulate energy.

Used by scnn-networks (per network, ``energy_breakdown.csv``) and scnn-density-sweep (at the dense end).
Everything here is read from the designs' per-layer frames (``energy_<component>_pj`` columns of
:meth:`accel_sim.pipeline.run_result.RunResult.layers_frame`); nothing is re-costed.
"""
from __future__ import annotations

import math

import pandas as pd

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.pipeline.catalog import load_arch
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.studies.scnn_common import DESIGN_CONFIGS, conv_network, run_archs, scnn_variant
from accel_sim.foundations.workload.layer import Network

# The components a Cartesian-product design charges once per product (accel_sim/models/scnn/accounting.py): the
# scatter crossbar transfer and the accumulator bank read-modify-write with its add. DCNN accumulates in place.
PER_PRODUCT = ("crossbar", "accumulator_banks")
BITS_PER_BYTE = 8
STATIC = "static (leakage; beside energy_pj, not in it)"
TOTAL = "total (energy_pj)"


def component_columns(frame: pd.DataFrame) -> list[str]:
    """The ``energy_<component>_pj`` columns of a per-layer frame, in their order."""
    return [c for c in frame.columns if c.startswith("energy_") and c.endswith("_pj") and c != "energy_pj"]


def component_totals(per_layer: pd.DataFrame) -> pd.DataFrame:
    """Per design (rows, in order of appearance): every component's energy summed over the layers, the total
    ``energy_pj`` and, where the frame has it, the leakage ``static_energy_pj`` (pJ)."""
    columns = component_columns(per_layer) + ["energy_pj"]
    columns += ["static_energy_pj"] if "static_energy_pj" in per_layer else []
    return per_layer.groupby("design", sort=False)[columns].sum()


def _name(column: str) -> str:
    return column.removeprefix("energy_").removesuffix("_pj")


def breakdown(totals: pd.DataFrame, point: str) -> list[dict[str, object]]:
    """Rows of ``energy_breakdown.csv`` for one network (or density point) ``point``: per component, each
    design's energy (``<design>_pj``), as a share of DCNN's total (``<design>_share``), DCNN's energy over the
    design's (``dcnn_over_<design>``: that component's own gain; NaN where the design charges nothing) and the
    design's gain over DCNN with that component charged to neither design (``gain_<design>_without``: how
    much of the gap the component holds). Then the total row, and the leakage row (static energy, which the
    gains above and comparison.csv leave out)."""
    designs = list(totals.index)
    dcnn_total = float(totals.loc["dcnn", "energy_pj"])
    rows = []
    columns = component_columns(totals.reset_index()) + ["energy_pj"]
    columns += ["static_energy_pj"] if "static_energy_pj" in totals else []
    for column in columns:
        label = {"energy_pj": TOTAL, "static_energy_pj": STATIC}.get(column, _name(column))
        row: dict[str, object] = {"point": point, "component": label}
        dcnn_part = float(totals.loc["dcnn", column])
        for design in designs:
            part = float(totals.loc[design, column])
            row[f"{design}_pj"] = part
            row[f"{design}_share"] = part / dcnn_total
            if design == "dcnn":
                continue
            row[f"dcnn_over_{design}"] = dcnn_part / part if part else math.nan
            total = float(totals.loc[design, "energy_pj"])
            if column == "energy_pj":
                row[f"gain_{design}_without"] = dcnn_total / total
            elif column == "static_energy_pj":   # the gain with the leakage added to both designs
                row[f"gain_{design}_without"] = (dcnn_total + dcnn_part) / (total + part)
            else:
                row[f"gain_{design}_without"] = (dcnn_total - dcnn_part) / (total - part)
        rows.append(row)
    return rows


def per_product_energy(totals: pd.DataFrame, design: str = "scnn") -> float:
    """The design's energy in the components it charges per product (:data:`PER_PRODUCT`), pJ."""
    return float(sum(totals.loc[design, f"energy_{c}_pj"] for c in PER_PRODUCT if f"energy_{c}_pj" in totals))


def implied_per_product_scale(points: list[tuple[float, float, float]], target_gain: float) -> float | None:
    """The factor x on the design's per-product energy P that makes the MEAN over ``points`` of
    ``dcnn / (design - P + x P)`` equal ``target_gain``, every other energy unchanged; each point is
    ``(dcnn_pj, design_pj, per_product_pj)``. A diagnostic of where a published gain puts the gap (never a
    setting). None if even x = 0 misses the target; x > 1 means the design is already better than the target."""
    def mean_gain(x: float) -> float:
        return sum(d / (s - p + x * p) for d, s, p in points) / len(points)
    if mean_gain(0.0) < target_gain:
        return None
    low, high = 0.0, 1.0
    while mean_gain(high) > target_gain:   # the gain falls as x grows
        low, high = high, 2 * high
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if mean_gain(middle) > target_gain else (low, middle)
    return (low + high) / 2


def breakdown_markdown(table: pd.DataFrame, design: str = "scnn") -> str:
    """One line per (point, component) with energy: DCNN's share, the design's share of DCNN's total, the
    component's own gain and the design's gain without the component."""
    lines = [f"| point | component | DCNN share | {design.upper()} (of DCNN total) | DCNN / {design.upper()} | "
             f"gain without it |", "|---|---|---|---|---|---|"]
    for r in table.to_dict("records"):
        if not (r["dcnn_pj"] or r[f"{design}_pj"]):
            continue
        own = r[f"dcnn_over_{design}"]
        own_text = f"{own:.2f}x" if r["dcnn_pj"] and r[f"{design}_pj"] else "-"
        lines.append(f"| {r['point']} | {r['component']} | {100 * r['dcnn_share']:.1f} % | "
                     f"{100 * r[f'{design}_share']:.1f} % | {own_text} | "
                     f"{r[f'gain_{design}_without']:.2f}x |")
    return "\n".join(lines)


def multi_pass(per_layer: pd.DataFrame) -> pd.Series:
    """Rows of a per-layer frame whose layer runs in more than one pass (temporal tiles or channel chunks)."""
    return (per_layer.temporal_tiles > 1) | (per_layer.channel_chunks > 1)


def tiling_penalty(network: str, scnn_layers: pd.DataFrame) -> pd.DataFrame:
    """SCNN's layers of ``network`` that run in more than one pass (temporal tiles or channel chunks, from
    ``scnn_layers``: SCNN's per-layer frame of the whole network, in layer order), each run again in ONE pass
    (``dram: ignored``: same counts, no tiling): ``network, layer, temporal_tiles, energy_pj,
    energy_one_pass_pj, penalty`` (energy as modelled over energy in one pass, minus 1) and
    ``penalty_operands_once``: the penalty if the layer's DRAM traffic were its weights, inputs and outputs
    moved ONCE each (no weight re-read, no spilled halo, no carried partial sum; in the DRAM format of the
    shipped cut: its ``operand_dram_bits``), what no order can go below on DRAM: the one-pass energy plus the
    DRAM energy (the config's table) of those bytes beyond what the one-pass run moves (its ``dram_bits``). A
    DRAM-only bound: the on-chip energy stays the one-pass run's (whose Kc may differ from the tiled run's)."""
    tiled = scnn_layers[multi_pass(scnn_layers)]
    columns = ["network", "layer", "temporal_tiles", "energy_pj", "energy_one_pass_pj", "penalty",
               "penalty_operands_once"]
    if tiled.empty:
        return pd.DataFrame(columns=columns)
    full = conv_network(network)
    layers = tuple(layer for layer in full.layers if layer.name in set(tiled.layer))
    one_pass = run_archs(Network(full.name, layers, full.source, full.description),
                         {"one pass": scnn_variant({"dram": "ignored"})})["one pass"].set_index("layer")
    table = tiled[["layer", "temporal_tiles", "energy_pj"]].copy()
    table.insert(0, "network", network)
    table["energy_one_pass_pj"] = table.layer.map(one_pass.energy_pj)
    table["penalty"] = table.energy_pj / table.energy_one_pass_pj - 1
    per_byte = load_energy_table(load_arch(DESIGN_CONFIGS["scnn"]).energy_table).energy_per_action_pj(
        "dram", "read", BITS_PER_BYTE)
    beyond = (tiled.operand_dram_bits.to_numpy() - table.layer.map(one_pass.dram_bits).to_numpy()) / BITS_PER_BYTE
    table["penalty_operands_once"] = [(energy + per_byte * extra) / energy - 1
                                      for energy, extra in zip(table.energy_one_pass_pj, beyond)]
    return table[columns].reset_index(drop=True)


# DCNN's partial sums in the accumulator buffer (accel_sim/models/scnn/spec.py, dense_partial_sums): the input-stationary
# reading of the paper's PT-IS-DP-dense, a named choice that is not shipped (arch_configs/dcnn.yaml: in_place).
BUFFERED = {"scnn.dense_partial_sums": "buffer"}


def buffered_archs(designs: tuple[str, ...] = ("dcnn", "dcnn_opt")) -> dict[str, ArchSpec]:
    """The dense designs with ``dense_partial_sums: buffer``, for :func:`run_archs` (labels: ``<design> buffer``)."""
    return {f"{d} buffer": load_arch(DESIGN_CONFIGS[d], BUFFERED) for d in designs}


def buffered_energy(frames: dict[str, pd.DataFrame], designs: tuple[str, ...] = ("dcnn", "dcnn_opt")
                    ) -> dict[str, float]:
    """Total energy (pJ) of each dense design with ``dense_partial_sums: buffer``, from :func:`run_archs`' frames
    of :func:`buffered_archs` (run with other archs in one pass over the layers: the operands made once)."""
    return {d: float(frames[f"{d} buffer"].energy_pj.sum()) for d in designs}


def buffered_dense_energy(network: Network, designs: tuple[str, ...] = ("dcnn", "dcnn_opt")) -> dict[str, float]:
    """Total energy (pJ) of each dense design on ``network`` with ``dense_partial_sums: buffer``."""
    return buffered_energy(run_archs(network, buffered_archs(designs)), designs)


def partial_sums_rows(network: str, totals: pd.DataFrame, buffered: dict[str, float]) -> dict[str, object]:
    """One row of ``dense_partial_sums.csv``: SCNN's and DCNN-opt's gains over DCNN with DCNN's partial sums in
    place (shipped) and in the buffer (both dense designs switched), from ``totals`` (component totals per design)
    and ``buffered`` (:func:`buffered_dense_energy`)."""
    dcnn, opt, scnn = (float(totals.loc[d, "energy_pj"]) for d in ("dcnn", "dcnn_opt", "scnn"))
    return {"network": network, "dcnn_pj": dcnn, "dcnn_buffer_pj": buffered["dcnn"], "dcnn_opt_pj": opt,
            "dcnn_opt_buffer_pj": buffered["dcnn_opt"], "scnn_pj": scnn,
            "gain_scnn": dcnn / scnn, "gain_scnn_buffer": buffered["dcnn"] / scnn,
            "gain_dcnn_opt": dcnn / opt, "gain_dcnn_opt_buffer": buffered["dcnn"] / buffered["dcnn_opt"]}


# The DRAM tile order (accel_sim/models/scnn/spec.py, dram_tile_order): the shipped 'fewest_tiles' against 'min_traffic'
# (per layer, the temporal split or channel chunks moving the fewest DRAM bits, as Timeloop's mapper searches
# mappings; the paper does not say how it tiled through DRAM). Not shipped: the lead decides.
MIN_TRAFFIC = {"scnn.dram_tile_order": "min_traffic"}
SHIPPED_ORDER, EVERY_DESIGN, SCNN_ONLY = ("fewest_tiles (shipped)", "min_traffic, every design",
                                          "min_traffic, SCNN only")


def min_traffic_runs(network: Network, per_layer: pd.DataFrame, designs: tuple[str, ...]) -> pd.DataFrame:
    """The layers of ``network`` some design of ``per_layer`` (:func:`run_designs`' frame) runs in more than one
    pass, run again by every design with ``dram_tile_order: min_traffic``; the same columns. A layer that fits
    in one pass is the same under both orders (nothing to search), so it is not run again."""
    names = set(per_layer[multi_pass(per_layer)].layer)
    if not names:
        return per_layer.iloc[0:0]
    subset = Network(network.name, tuple(layer for layer in network.layers if layer.name in names), network.source,
                     network.description)
    frames = run_archs(subset, {d: load_arch(DESIGN_CONFIGS[d], MIN_TRAFFIC) for d in designs})
    return pd.concat([frame.assign(design=d) for d, frame in frames.items()], ignore_index=True)


def _totals(per_layer: pd.DataFrame, rerun: pd.DataFrame, designs_rerun: tuple[str, ...]) -> pd.DataFrame:
    """Per design: cycles, energy and DRAM bytes summed over the layers, the layers of ``rerun`` of the designs
    ``designs_rerun`` replacing their shipped rows."""
    columns = ["cycles", "energy_pj", "dram_read_bytes", "dram_write_bytes"]
    replaced = rerun[rerun.design.isin(designs_rerun)]
    keys = set(zip(replaced.design, replaced.layer))
    kept = per_layer[[(d, n) not in keys for d, n in zip(per_layer.design, per_layer.layer)]]
    return pd.concat([kept, replaced]).groupby("design")[columns].sum()


def dram_order_rows(network: str, per_layer: pd.DataFrame, rerun: pd.DataFrame) -> list[dict[str, object]]:
    """Rows of ``dram_tile_order.csv`` for one network: SCNN's speed-up and energy gain over DCNN (and DCNN-opt's
    energy gain), SCNN's DRAM bytes and multi-pass layers, with the shipped order, with min_traffic on every
    design, and with min_traffic on SCNN only (DCNN's and DCNN-opt's tiling as shipped)."""
    rows = []
    for label, rerun_designs in ((SHIPPED_ORDER, ()), (EVERY_DESIGN, tuple(per_layer.design.unique())),
                                 (SCNN_ONLY, ("scnn",))):
        t = _totals(per_layer, rerun, rerun_designs)
        row = {"network": network, "order": label, "speedup_scnn": t.cycles["dcnn"] / t.cycles["scnn"],
               "energy_gain_scnn": t.energy_pj["dcnn"] / t.energy_pj["scnn"],
               "scnn_dram_bytes": float(t.dram_read_bytes["scnn"] + t.dram_write_bytes["scnn"]),
               "scnn_multi_pass_layers": int(multi_pass(per_layer[per_layer.design == "scnn"]).sum())}
        if "dcnn_opt" in t.index:
            row["energy_gain_dcnn_opt"] = t.energy_pj["dcnn"] / t.energy_pj["dcnn_opt"]
        rows.append(row)
    return rows


def with_min_traffic(tiling: pd.DataFrame, rerun: pd.DataFrame) -> pd.DataFrame:
    """``temporal_tiling.csv`` (:func:`tiling_penalty`) with each SCNN layer's cut and penalty under min_traffic:
    ``passes_min_traffic`` ('T x N': temporal tiles x channel chunks), ``energy_min_traffic_pj``,
    ``penalty_min_traffic`` (over the same one-pass energy)."""
    scnn = rerun[rerun.design == "scnn"].set_index("layer")
    table = tiling.copy()
    table["passes_min_traffic"] = [f"{int(scnn.temporal_tiles[n])} x {int(scnn.channel_chunks[n])}"
                                   for n in table.layer]
    table["energy_min_traffic_pj"] = table.layer.map(scnn.energy_pj)
    table["penalty_min_traffic"] = table.energy_min_traffic_pj / table.energy_one_pass_pj - 1
    return table
