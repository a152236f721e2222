"""Filter / channel pruning compacts the layer and its neighbour for every family: a dense family
runs the smaller GEMM (the bar: 50 % filters on every dense family, MACs and cycles within 5 % of
the layer built at half the filters; here they are equal)."""
import dataclasses

import pytest

from accel_sim import load_arch, simulate
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload import ConvLayer, GemmLayer, Network
from accel_sim.foundations.workload.layer import OperandSource, VectorLayer
from accel_sim.foundations.workload.structured import compact_layer, compact_network

DENSE_ARCHS = {"systolic": "tpu_like_128x128_ws", "tensor_core": "ampere_a100_dense", "simt": "ampere_a100_simt",
               "dlu": "dlu", "pe_array": "pe_array"}  # pe_array.yaml: sparsity_support none


def conv(name, c, k, density=1.0, pattern="unstructured", compact=True, groups=1):
    return ConvLayer(name, in_h=14, in_w=14, in_channels=c, out_channels=k, kernel_h=3, kernel_w=3, pad_top=1,
                     pad_bottom=1, pad_left=1, pad_right=1, groups=groups, weight_density=density,
                     operands=OperandSource(weight_pattern=pattern, compact=compact))


def pair(filters, density=1.0, pattern="unstructured"):
    return Network("n", (conv("a", 32, filters, density, pattern), conv("b", filters, 64)))


@pytest.mark.parametrize("family", sorted(DENSE_ARCHS))
def test_filter_pruning_at_half_runs_the_half_width_layers(family):
    arch = load_arch(DENSE_ARCHS[family])
    pruned, half, full = (simulate(arch, net) for net in (pair(128, 0.5, "filter"), pair(64), pair(128)))
    for p, h in zip(pruned.layers, half.layers):
        assert p.macs_dense == h.macs_dense
        assert p.cycles == pytest.approx(h.cycles, rel=0.05)
    assert pruned.layers[1].macs_dense == full.layers[1].macs_dense // 2  # the next layer lost half its inputs


def test_channel_pruning_shrinks_the_layer_and_its_producer():
    net = Network("n", (conv("a", 32, 128), conv("b", 128, 64, 0.25, "channel")))
    a, b = compact_network(net).layers
    assert (a.out_channels, b.in_channels, b.weight_density, b.operands.weight_pattern) == (32, 32, 1.0, "unstructured")


def test_a_flattening_fc_and_a_vector_layer_follow_the_pruned_maps():
    fc = GemmLayer("fc", m=1, k=128 * 14 * 14, n=10)
    a, fc2 = compact_network(Network("n", (conv("a", 32, 128, 0.5, "filter"), fc))).layers
    assert fc2.k == 64 * 14 * 14
    ffn = (GemmLayer("up", m=8, k=64, n=256, weight_density=0.5, operands=OperandSource(weight_pattern="filter")),
           VectorLayer("act", "gelu", rows=8, width=256), GemmLayer("down", m=8, k=256, n=64))
    up, act, down = compact_network(Network("ffn", ffn)).layers
    assert (up.n, act.width, down.k) == (128, 128, 128)


def test_depthwise_reader_loses_its_groups_and_passes_them_on():
    net = Network("n", (conv("a", 16, 64, 0.5, "filter"), conv("dw", 64, 64, groups=64), conv("pw", 64, 32)))
    _, dw, pw = compact_network(net).layers
    assert (dw.in_channels, dw.groups, dw.out_channels, pw.in_channels) == (32, 32, 32, 32)


def test_unrelated_and_uncompacted_layers_stay():
    residual = Network("n", (conv("a", 32, 128, 0.5, "filter"), conv("b", 96, 64)))
    assert compact_network(residual).layers[1] == residual.layers[1]
    masked = Network("n", (conv("a", 32, 128, 0.5, "filter", compact=False), conv("b", 128, 64)))
    assert compact_network(masked) is masked
    once = compact_layer(conv("a", 32, 128, 0.5, "filter"))
    assert compact_layer(once) == once and once.out_channels == 64


def test_pruning_the_same_channels_twice_and_a_payload_neighbour_are_refused(tmp_path):
    clash = Network("n", (conv("a", 32, 128, 0.5, "filter"), conv("b", 128, 64, 0.5, "channel")))
    with pytest.raises(InputError, match="prunes the channels"):
        compact_network(clash)
    reader = dataclasses.replace(conv("b", 128, 64), operands=OperandSource(payload=str(tmp_path / "b.npz")))
    with pytest.raises(InputError, match="payload"):
        compact_network(Network("n", (conv("a", 32, 128, 0.5, "filter"), reader)))


@pytest.mark.parametrize("pattern", ["vector", "kernel"])
def test_vector_and_kernel_pruning_reach_a_sparse_family_as_zeros(pattern):
    """The finer grains stay zeros in the full-size tensor: a dense array computes them, a PE array with
    skipping skips them (every weight of a pruned kernel row / kernel is zero)."""
    layer = conv("a", 32, 32, 0.5, pattern)
    dense = simulate(load_arch("pe_array"), Network("n", (layer,))).layers[0]
    skipping = simulate(load_arch("pe_array_skipping"), Network("n", (layer,))).layers[0]
    assert dense.macs_dense == skipping.macs_dense == layer.macs and dense.macs_issued + dense.metrics.get(
        "macs_skipped", 0) == layer.macs
    assert skipping.macs_issued <= 0.5 * layer.macs and skipping.cycles < dense.cycles
