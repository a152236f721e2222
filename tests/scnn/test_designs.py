"""The paper's comparison designs come from flags on one array and behave as Table 6 says."""
import pytest

from accel_sim import load_arch, simulate
from accel_sim.foundations.workload import ConvLayer, GemmLayer, Network

DESIGNS = ("dcnn", "dcnn_opt", "scnn_sparse_a", "scnn_sparse_w", "scnn")


def run(design, layer, **overrides):
    arch = load_arch(design, overrides)
    result = simulate(arch, Network("n", (layer,)))
    return result.layers[0], result.energy[0]


def sparse_layer(density):
    return ConvLayer("c", in_h=28, in_w=28, in_channels=16, out_channels=64, kernel_h=3, kernel_w=3, pad_top=1,
                     pad_bottom=1, pad_left=1, pad_right=1, weight_density=density, input_density=density)


def test_designs_share_the_array_and_clock():
    archs = [load_arch(d) for d in DESIGNS]
    assert {(a.clock, a.scnn.pes, a.scnn.multipliers_per_pe) for a in archs} == {(1e9, 64, 16)}
    assert [a.scnn.design for a in archs] == list(DESIGNS)


def test_dcnn_opt_saves_energy_only():
    layer = sparse_layer(0.3)
    dense, dense_energy = run("dcnn", layer)
    opt, opt_energy = run("dcnn_opt", layer)
    assert (opt.cycles, opt.stall_cycles) == (dense.cycles, dense.stall_cycles)
    assert opt_energy.by_component_pj["multipliers"] < 0.2 * dense_energy.by_component_pj["multipliers"]
    assert opt_energy.total_pj < dense_energy.total_pj
    assert dense.macs_issued == dense.macs_dense == layer.macs


def test_sparsity_ladder_at_low_density():
    layer = sparse_layer(0.3)
    cycles = {d: run(d, layer)[0].cycles for d in DESIGNS}
    assert cycles["scnn"] < cycles["scnn_sparse_w"] < cycles["dcnn"]
    assert cycles["scnn"] < cycles["scnn_sparse_a"] < cycles["dcnn"]
    products = {d: run(d, layer)[0].metrics["products_issued"] for d in ("scnn", "scnn_sparse_a", "scnn_sparse_w")}
    assert products["scnn"] < min(products["scnn_sparse_a"], products["scnn_sparse_w"])


def test_dense_layer_all_cartesian_variants_do_the_same_work():
    layer = sparse_layer(1.0)
    results = [run(d, layer)[0] for d in ("scnn_sparse_a", "scnn_sparse_w", "scnn")]
    assert len({r.cycles for r in results}) == 1


def test_k_fastest_weight_order_and_channel_spread_remove_same_output_conflicts():
    layer = sparse_layer(1.0)
    paper, _ = run("scnn", layer)
    spread, _ = run("scnn", layer, **{"scnn.weight_order": "k_then_rs", "scnn.bank_mapping": "channel_spread"})
    assert paper.metrics["bank_conflict_cycles"] > 0 == spread.metrics["bank_conflict_cycles"]
    assert spread.cycles < paper.cycles


def test_fc_layer_gets_at_most_f_products_per_pe_cycle():
    fc = GemmLayer("fc", m=1, k=512, n=256, weight_density=0.3, input_density=0.5)
    result, _ = run("scnn", fc)
    arch = load_arch("scnn")
    assert result.metrics["intra_pe_utilization"] <= arch.scnn.mult_f / arch.scnn.multipliers_per_pe
    assert result.macs_issued <= arch.scnn.mult_f * result.cycles


@pytest.mark.parametrize("stride", [2, 4])
def test_strided_layers_multiply_only_matching_phases(stride):
    layer = ConvLayer("s", in_h=23, in_w=23, in_channels=3, out_channels=8, kernel_h=5, kernel_w=5,
                      stride_h=stride, stride_w=stride, weight_density=0.6, input_density=0.7)
    result, _ = run("scnn", layer)
    # every product of an activation with a weight of its phase class; never more than 1/stride^2 of all pairs
    assert result.metrics["products_issued"] < 0.5 * (23 * 23 * 3 * 0.7) * (25 * 8 * 0.6)
    assert result.macs_issued <= result.metrics["products_issued"]


@pytest.mark.parametrize("banks", [64, 100])
def test_any_bank_count_runs(banks):
    """Beyond 32 banks the fast path counts bank loads instead of bit-slicing them (issue 14, item 6)."""
    layer = sparse_layer(0.5)
    wide, _ = run("scnn", layer, **{"scnn.accumulator_banks": banks})
    paper, _ = run("scnn", layer)
    assert wide.metrics["products_issued"] == paper.metrics["products_issued"]
    assert 0 < wide.metrics["steps"] <= wide.cycles * 64
