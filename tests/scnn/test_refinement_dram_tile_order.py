"""scnn.dram_tile_order: 'fewest_tiles' (the shipped rule) and 'min_traffic' (per layer, the temporal split or
channel chunks moving the fewest DRAM bits). Bad input; the plan's traffic estimate equals what both paths move;
min_traffic never moves more than fewest_tiles; fast path and reference agree on cases where the orders differ."""
import numpy as np
import pytest

from accel_sim import InputError, load_arch
from accel_sim.cli.main import main
from accel_sim.models.scnn.family import FAMILY
from accel_sim.models.scnn.plan.operands import conv_operands, layer_outputs
from accel_sim.models.scnn.plan.temporal_tiling import dram_bits
from accel_sim.foundations.workload import ConvLayer
from tests.scnn._layers import DESIGNS, scnn_arch

CASES = 40


def order_case(seed: int, order: str):
    """A small plane with many input and output channels (weights heavy next to activations) on a small
    array whose IARAM holds only part of it: the two orders often cut it differently."""
    rng = np.random.default_rng(200_000 + seed)
    design = str(rng.choice(DESIGNS))
    arch = scnn_arch({
        "scnn.design": design, "scnn.dram_tile_order": order,
        "scnn.pe_rows": int(rng.integers(1, 3)), "scnn.pe_cols": int(rng.integers(1, 3)),
        "scnn.mult_f": int(rng.choice([2, 4])), "scnn.mult_i": int(rng.choice([2, 4])),
        "scnn.accumulator_banks": int(rng.choice([8, 32])), "scnn.accumulator_entries": int(rng.choice([8, 32])),
        "scnn.iaram_size": int(rng.choice([40, 64, 96])), "scnn.oaram_size": int(rng.choice([16, 10240])),
        "scnn.dram_bandwidth": float(rng.choice([2.0, 50.0])),
    })
    k = int(rng.choice([1, 3]))
    side = int(rng.integers(max(k, 2), 7))
    layer = ConvLayer(f"order{seed}", in_h=side, in_w=side, in_channels=int(rng.integers(4, 17)),
                      out_channels=int(rng.integers(4, 25)), kernel_h=k, kernel_w=k, pad_top=k // 2,
                      pad_bottom=k // 2, pad_left=k // 2, pad_right=k // 2,
                      weight_density=float(rng.uniform(0.3, 1.0)), input_density=float(rng.uniform(0.3, 1.0)))
    return arch, layer


def planned_bits(arch, layer, plan) -> int:
    weights, inputs = conv_operands(layer, plan.spec.fc_layout)
    nonzeros = tuple(plan.mask_nonzeros(g) for g in range(plan.view.groups)) if plan.traits.skip_weights else None
    return dram_bits(arch, plan.spec, plan.traits, plan.view, plan.tiling, plan.input_bits, inputs, weights,
                     layer_outputs(layer), nonzeros)


def test_bad_value_is_one_line(tmp_path, capsys):
    with pytest.raises(InputError, match=r"scnn\.dram_tile_order.*expected one of fewest_tiles, min_traffic"):
        load_arch("scnn", {"scnn.dram_tile_order": "weights_outer"})
    assert main(["run", "--arch", "scnn", "--workload", "alexnet", "--out", str(tmp_path), "--set",
                 "scnn.dram_tile_order=fastest"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "scnn.dram_tile_order" in err[0]


def test_the_plans_traffic_is_what_the_paths_move_and_min_traffic_never_moves_more():
    differ = {"chunks instead of tiles": 0, "fewer tiles": 0}
    for seed in range(CASES):
        moved = {}
        for order in ("fewest_tiles", "min_traffic"):
            arch, layer = order_case(seed, order)
            plan, counters = FAMILY.counters(arch, layer)
            moved[order] = counters.dram_read_bits + counters.dram_write_bits
            assert planned_bits(arch, layer, plan) == moved[order], (seed, order)
            assert int(plan.input_bits.max()) <= arch.scnn.iaram_size * 8 and plan.tiling.kc >= 1
            if order == "fewest_tiles":
                shipped = plan.tiling
        assert moved["min_traffic"] <= moved["fewest_tiles"], seed
        if plan.tiling.passes != shipped.passes or plan.tiling.temporal_tiles != shipped.temporal_tiles:
            assert moved["min_traffic"] < moved["fewest_tiles"] or plan.tiling.passes < shipped.passes, seed
            differ["chunks instead of tiles" if plan.tiling.channel_chunks > 1 else "fewer tiles"] += 1
    assert differ["chunks instead of tiles"] >= 3, differ


def test_fast_equals_reference_with_either_order():
    """Every counter of both paths, on the cases where the orders cut the layer differently (the reference's
    DRAM bus moves the bytes of the chosen tiling) and on the others."""
    picked = 0
    for seed in range(CASES // 2):
        for order in ("fewest_tiles", "min_traffic"):
            arch, layer = order_case(seed, order)
            assert FAMILY.refinement(arch, layer) == [], (seed, order)
        picked += FAMILY.plan(arch, layer).tiling.channel_chunks > 1
    assert picked >= 2


def test_fewest_tiles_is_the_shipped_rule():
    """The default leaves every plan as it was: the scnn config ships fewest_tiles, and a layer that fits in
    one pass is not searched."""
    assert load_arch("scnn").scnn.dram_tile_order == "fewest_tiles"
    layer = ConvLayer("fits", in_h=4, in_w=4, in_channels=2, out_channels=3, kernel_h=3, kernel_w=3, pad_top=1,
                      pad_bottom=1, pad_left=1, pad_right=1, weight_density=0.5, input_density=0.5)
    plans = [FAMILY.plan(load_arch("scnn", {"scnn.dram_tile_order": o}), layer) for o in ("fewest_tiles",
                                                                                         "min_traffic")]
    assert all(p.tiling.passes == 1 for p in plans)


def test_study_rows_replace_only_the_rerun_layers_of_the_rerun_designs():
    """dram_tile_order.csv: network totals with the re-run (multi-pass) layers' rows swapped in, for every design
    or for SCNN only; temporal_tiling.csv's min_traffic columns over the same one-pass energy."""
    import pandas as pd

    from accel_sim.studies.scnn_energy import (EVERY_DESIGN, SCNN_ONLY, SHIPPED_ORDER, dram_order_rows,
                                               with_min_traffic)

    def frame(rows):
        return pd.DataFrame(rows, columns=["layer", "design", "cycles", "energy_pj", "dram_read_bytes",
                                           "dram_write_bytes", "temporal_tiles", "channel_chunks"])
    shipped = frame([("a", "dcnn", 100, 1000.0, 10, 0, 1, 1), ("a", "scnn", 50, 500.0, 5, 0, 1, 1),
                     ("b", "dcnn", 200, 2000.0, 20, 20, 4, 1), ("b", "scnn", 80, 1500.0, 40, 10, 4, 1)])
    rerun = frame([("b", "dcnn", 190, 1600.0, 10, 10, 1, 2), ("b", "scnn", 70, 1000.0, 15, 5, 1, 2)])
    rows = {r["order"]: r for r in dram_order_rows("net", shipped, rerun)}
    assert rows[SHIPPED_ORDER]["energy_gain_scnn"] == 3000 / 2000 and rows[SHIPPED_ORDER]["speedup_scnn"] == 300 / 130
    assert rows[EVERY_DESIGN]["energy_gain_scnn"] == 2600 / 1500 and rows[EVERY_DESIGN]["speedup_scnn"] == 290 / 120
    assert rows[SCNN_ONLY]["energy_gain_scnn"] == 3000 / 1500 and rows[SCNN_ONLY]["scnn_dram_bytes"] == 25
    assert rows[SHIPPED_ORDER]["scnn_dram_bytes"] == 55 and rows[SHIPPED_ORDER]["scnn_multi_pass_layers"] == 1
    tiling = pd.DataFrame({"network": ["net"], "layer": ["b"], "temporal_tiles": [4.0], "energy_pj": [1500.0],
                           "energy_one_pass_pj": [800.0], "penalty": [1500 / 800 - 1]})
    table = with_min_traffic(tiling, rerun).iloc[0]
    assert (table.passes_min_traffic, table.energy_min_traffic_pj) == ("1 x 2", 1000.0)
    assert table.penalty_min_traffic == 1000 / 800 - 1


def test_operands_once_bound_lies_between_one_pass_and_the_shipped_cut():
    """VGG conv2_1 (4 temporal tiles): moving its weights, inputs and outputs once each costs more than the one
    pass (its inputs must come from DRAM) and less than the shipped cut (weights read 4 times, halos spilled)."""
    from accel_sim.pipeline.catalog import load_arch as arch_of
    from accel_sim.studies.scnn_common import conv_network, run_archs
    from accel_sim.studies.scnn_energy import tiling_penalty
    from accel_sim.foundations.workload.layer import Network

    full = conv_network("vgg16")
    network = Network(full.name, tuple(layer for layer in full.layers if layer.name == "conv2_1"), full.source,
                      full.description)
    scnn = run_archs(network, {"scnn": arch_of("scnn")})["scnn"]
    table = tiling_penalty("vgg16", scnn)
    row = table.iloc[0]
    assert 0 < row.penalty_operands_once < row.penalty
    assert tiling_penalty("vgg16", scnn.iloc[0:0]).empty
    assert "penalty_operands_once" in tiling_penalty("vgg16", scnn.iloc[0:0])


@pytest.mark.parametrize("oaram, order, cut, read, write, psums_in_oaram", [
    (10240, "fewest_tiles", (2, 1), 416, 168, 0),
    (10240, "min_traffic", (1, 2), 250, 168, 8),
    (16, "min_traffic", (2, 1), 416, 168, 0)])
def test_worked_example_weights_once_or_twice(tmp_path, oaram, order, cut, read, write, psums_in_oaram):
    """A 1x1 conv of 2 channels x 2 pixels into 4 channels, all ones, on one PE with an IARAM of 6 B (48 bits).
    A channel's block of 2 pixels is 2 x 20 + 2 = 42 bits, of 1 pixel 21: both channels of both pixels (84) do
    not fit, of one pixel (42) do. fewest_tiles: 2 temporal tiles; each reads the weight blocks (per channel 4
    non-zeros: 4 x 20 + 3 = 83 bits; 166) and its input tile (42): 416 read; outputs (value 2) 4 channels x 21
    bits per tile: 168 written; 1x1 kernel, no halo. min_traffic's other cut: 1 tile, 2 chunks of one channel:
    weights once (166) and inputs 2 x 42: 250 read, outputs 4 x 42 = 168; the owned partial sums (2 pixels x
    4 channels x 24 bits = 192 bits) wait in the OARAM across the chunk boundary (8 words written and read):
    418 bits against 584. In an OARAM of 16 B they would cross through DRAM (2 x 192 more: 802): the tiles."""
    from accel_sim.foundations.workload.layer import OperandSource
    path = tmp_path / "w.npz"
    np.savez(path, weights=np.ones((4, 2, 1, 1), np.float32), inputs=np.ones((1, 2, 1, 2), np.float32))
    layer = ConvLayer("w", in_h=1, in_w=2, in_channels=2, out_channels=4, kernel_h=1, kernel_w=1,
                      operands=OperandSource(payload=str(path)))
    arch = load_arch("scnn", {"scnn.pe_rows": 1, "scnn.pe_cols": 1, "scnn.mult_f": 2, "scnn.mult_i": 2,
                              "scnn.accumulator_banks": 4, "scnn.iaram_size": 6, "scnn.oaram_size": oaram,
                              "scnn.dram_tile_order": order})
    plan = FAMILY.plan(arch, layer)
    fast, reference = FAMILY.fast(plan, None), FAMILY.reference(plan, None)
    assert fast == reference
    assert (plan.tiling.temporal_tiles, plan.tiling.channel_chunks) == cut
    assert (fast.dram_read_bits, fast.dram_write_bits, fast.psum_oaram_words) == (read, write, psums_in_oaram)
    assert planned_bits(arch, layer, plan) == read + write
