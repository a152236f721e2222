"""The pruned Deep Compression workloads carry Han et al.'s per-layer code and index widths."""
import pytest

from accel_sim import load_workload
from accel_sim.foundations.workload import ConvLayer

# (conv code bits, fc code bits, relative index bits): networks.md / Han et al. ICLR 2016 Tables 2-5
WIDTHS = {"alexnet": (8, 5, 4), "vgg16": (8, 5, 5), "lenet5": (8, 5, 5), "lenet_300_100": (None, 6, 5)}


@pytest.mark.parametrize("name", sorted(WIDTHS))
def test_every_layer_has_its_published_widths(name):
    conv_bits, fc_bits, index_bits = WIDTHS[name]
    for layer in load_workload(name).layers:
        expected = conv_bits if isinstance(layer, ConvLayer) else fc_bits
        assert (layer.weight_bits, layer.index_bits) == (expected, index_bits), layer.name


def test_densities_are_unchanged_by_the_widths():
    alexnet = load_workload("alexnet")
    assert [round(layer.weight_density * 100) for layer in alexnet.layers] == [84, 38, 35, 37, 37, 9, 9, 25]
