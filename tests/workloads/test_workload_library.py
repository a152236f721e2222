"""The workload library (``workloads/*.yaml``): every file loads, and shapes, MAC counts and
densities match the published networks (/work/shared/papers/networks.md) and SCALE-Sim."""
from functools import cache
from pathlib import Path

import pytest

from accel_sim import load_workload
from accel_sim.foundations.workload import ConvLayer, GemmLayer

REPO = Path(__file__).resolve().parents[2]
WORKLOADS = sorted((REPO / "workloads").glob("*.yaml"))
SCALESIM_RESNET18 = REPO / "tests" / "data" / "topologies" / "Resnet18.csv"

M = 1e6
G = 1e9

LAYER_COUNTS = {
    "alexnet": 8, "alexnet_dense": 8, "vgg16": 16, "vgg16_dense": 16,
    "resnet18": 21,            # 17 convs of the 4 stages + conv1 + 3 downsample + fc
    "resnet18_scalesim": 21,
    "resnet18_cifar10": 21,    # the CIFAR-10 variant: 3x3 stem, no max-pool, 512 -> 10 classifier
    "resnet50": 54,            # conv1 + 16 bottlenecks x 3 + 4 downsample + fc
    "resnet152": 156,          # conv1 + 50 bottlenecks x 3 + 4 downsample + fc
    "googlenet": 58,           # 3 stem convs + 9 x 6 inception convs + classifier
    "mobilenet_v2": 53,        # conv1 + (2 + 16 x 3) bottleneck convs + conv_last + fc
    "bert_base_seq128": 360,   # 12 layers x (q, k, v, 12 x (qk, av), o, ffn1, ffn2)
    "lenet_300_100": 3, "lenet5": 4, "neuraltalk": 3, "tiny_conv": 3,
    "trace_examples": 3,       # tiny conv, fc and softmax layers of the teaching traces
    # files of the EIE and SCNN models
    "eie_4pe_example": 1,      # the paper's 4-PE worked example (Han et al. ISCA 2016, Fig. 2)
    "eie_benchmarks": 9, "eie_benchmarks_structured": 9,   # EIE's nine benchmark layers
    "scnn_googlenet": 54,      # the 54 inception convs of GoogLeNet
    # files of the Eyeriss model: the CONV layers its chip was measured on (Chen et al., JSSC 2017)
    "eyeriss_alexnet_conv": 5, "eyeriss_vgg16_conv": 13,
    # files of the Eyeriss v2 model: the networks of its post-layout benchmarks (Chen et al., JETCAS 2019)
    "eyeriss_v2_sparse_alexnet": 8, "eyeriss_v2_mobilenet": 28,
}


@cache
def load(name):
    """Each file is parsed once per test session (PyYAML is slow on the 360-layer BERT file)."""
    return load_workload(name)


def convs(net):
    return [layer for layer in net.layers if isinstance(layer, ConvLayer)]


@pytest.mark.parametrize("path", WORKLOADS, ids=lambda p: p.stem)
def test_every_workload_file_loads(path):
    net = load(path.stem)   # by name: resolves to workloads/<stem>.yaml
    assert net.name == path.stem
    assert net.source and net.description
    assert path.read_text(encoding="utf-8").startswith("#"), "each file starts with a comment header"


def test_library_is_complete_and_layer_counts():
    assert sorted(p.stem for p in WORKLOADS) == sorted(LAYER_COUNTS)
    assert {name: len(load(name).layers) for name in LAYER_COUNTS} == LAYER_COUNTS


ALEXNET_MACS_M = [105.4, 223.9, 149.5, 112.1, 74.8, 37.7, 16.8, 4.1]
ALEXNET_WEIGHT = [0.84, 0.38, 0.35, 0.37, 0.37, 0.09, 0.09, 0.25]
ALEXNET_OUT = [0.88, 0.52, 0.37, 0.40, 0.34, 0.36, 0.40, 1.00]
VGG_WEIGHT = [0.58, 0.22, 0.34, 0.36, 0.53, 0.24, 0.42, 0.32, 0.27, 0.34, 0.35, 0.29, 0.36, 0.04, 0.04, 0.23]
VGG_OUT = [0.53, 0.89, 0.80, 0.81, 0.68, 0.70, 0.64, 0.51, 0.45, 0.34, 0.32, 0.29, 0.19, 0.38, 0.42, 1.00]


def shapes(net):
    """Kind, name, GEMM shape and output plane of every layer (densities left out)."""
    return [(type(layer), layer.name, layer.gemm(), getattr(layer, "out_h", None)) for layer in net.layers]


def test_alexnet_per_layer_macs_groups_and_pruned_densities():
    net = load("alexnet")
    assert [layer.name for layer in net.layers] == ["conv1", "conv2", "conv3", "conv4", "conv5", "fc6", "fc7", "fc8"]
    for layer, expected in zip(net.layers, ALEXNET_MACS_M):
        assert layer.macs / M == pytest.approx(expected, abs=0.1), layer.name
    assert [layer.groups for layer in net.layers[:5]] == [1, 2, 1, 2, 2]
    assert [(layer.out_h, layer.out_w) for layer in net.layers[:5]] == [(55, 55), (27, 27), (13, 13), (13, 13), (13, 13)]
    assert [layer.weight_density for layer in net.layers] == ALEXNET_WEIGHT
    assert [layer.input_density for layer in net.layers] == [1.0] + ALEXNET_OUT[:-1]


def test_dense_variants_have_the_same_gemmsand_no_densities():
    for pruned, dense in (("alexnet", "alexnet_dense"), ("vgg16", "vgg16_dense")):
        p, d = load(pruned), load(dense)
        assert shapes(p) == shapes(d)
        assert all(layer.weight_density == 1.0 and layer.input_density == 1.0 for layer in d.layers)


def test_vgg16_macs_and_pruned_densities():
    net = load("vgg16")
    conv_layers = convs(net)
    assert len(conv_layers) == 13
    assert all((c.kernel_h, c.stride_h, c.pad_top, c.out_h) == (3, 1, 1, c.in_h) for c in conv_layers)
    assert sum(c.macs for c in conv_layers) / G == pytest.approx(15.35, abs=0.01)
    assert [(layer.k, layer.n) for layer in net.layers[13:]] == [(25088, 4096), (4096, 4096), (4096, 1000)]
    assert [layer.weight_density for layer in net.layers] == VGG_WEIGHT
    assert [layer.input_density for layer in net.layers] == [1.0] + VGG_OUT[:-1]


def test_googlenet_inception_modules():
    net = load("googlenet")
    inception = [layer for layer in net.layers if layer.name.startswith("inception_")]
    assert len(inception) == 54
    assert sum(layer.macs for layer in inception) / G == pytest.approx(1.104, abs=0.001)
    assert all(layer.out_h == layer.in_h for layer in inception)   # all same-padded, stride 1
    by_name = {layer.name: layer for layer in net.layers}
    assert (by_name["conv1_7x7_s2"].out_h, by_name["conv2_3x3"].out_channels) == (112, 192)
    assert (by_name["inception_5b_5x5"].in_channels, by_name["inception_5b_5x5"].kernel_h) == (48, 5)
    assert (net.layers[-1].k, net.layers[-1].n) == (1024, 1000)


def test_resnet18_padded_output_sizes_and_macs():
    net = load("resnet18")
    by_name = {layer.name: layer for layer in net.layers}
    assert (by_name["conv1"].out_h, by_name["conv1"].out_w) == (112, 112)
    for stage, plane in ((1, 56), (2, 28), (3, 14), (4, 7)):
        assert {(c.out_h, c.out_w) for c in convs(net) if c.name.startswith(f"layer{stage}_")} == {(plane, plane)}
    downsample = [c for c in convs(net) if "downsample" in c.name]
    assert [(c.kernel_h, c.stride_h, c.in_channels, c.out_channels) for c in downsample] == [
        (1, 2, 64, 128), (1, 2, 128, 256), (1, 2, 256, 512)]
    assert (net.layers[-1].k, net.layers[-1].n) == (512, 1000)
    assert net.macs / G == pytest.approx(1.82, abs=0.01)


def test_resnet18_scalesim_equals_the_scalesim_csv_layer_by_layer():
    csv_net = load_workload(SCALESIM_RESNET18)
    yaml_net = load("resnet18_scalesim")
    assert len(csv_net.layers) == 21
    assert yaml_net.layers == csv_net.layers
    assert yaml_net.macs == csv_net.macs


def test_resnet50_v15_structure_and_macs():
    net = load("resnet50")
    by_name = {layer.name: layer for layer in net.layers}
    # v1.5: the stride-2 sits on the 3x3 of each stage's first bottleneck
    for stage in (2, 3, 4):
        assert by_name[f"layer{stage}_0_conv1"].stride_h == 1
        assert by_name[f"layer{stage}_0_conv2"].stride_h == 2
        assert by_name[f"layer{stage}_0_downsample"].stride_h == 2
    assert by_name["layer1_0_downsample"].stride_h == 1
    assert by_name["layer4_2_conv3"].out_h == 7 and by_name["layer4_2_conv3"].out_channels == 2048
    assert net.macs / G == pytest.approx(4.09, abs=0.01)


def test_mobilenet_v2_depthwise_and_macs():
    net = load("mobilenet_v2")
    depthwise = [c for c in convs(net) if c.is_depthwise]
    assert len(depthwise) == 17
    assert all(c.name.endswith("_dw") and c.kernel_h == 3 for c in depthwise)
    assert [c.stride_h for c in depthwise].count(2) == 4
    assert (net.layers[-2].in_channels, net.layers[-2].out_channels, net.layers[-2].out_h) == (320, 1280, 7)
    assert net.macs / M == pytest.approx(300, abs=3)


def test_bert_base_per_layer_gemms():
    net = load("bert_base_seq128")
    assert all(isinstance(layer, GemmLayer) for layer in net.layers)
    by_name = {layer.name: (layer.m, layer.k, layer.n) for layer in net.layers}
    for i in range(12):
        p = f"l{i:02d}_"
        for proj in ("q", "k", "v", "o"):
            assert by_name[p + proj] == (128, 768, 768)
        for h in range(12):
            assert by_name[f"{p}h{h:02d}_qk"] == (128, 64, 128)
            assert by_name[f"{p}h{h:02d}_av"] == (128, 128, 64)
        assert by_name[p + "ffn1"] == (128, 768, 3072)
        assert by_name[p + "ffn2"] == (128, 3072, 768)
    per_layer = 4 * 128 * 768 * 768 + 12 * 2 * 128 * 64 * 128 + 2 * 128 * 768 * 3072
    assert net.macs == 12 * per_layer


def test_bert_file_is_what_its_generator_writes():
    import importlib.util

    spec = importlib.util.spec_from_file_location("_generate_bert", REPO / "workloads" / "_generate_bert.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.render() == (REPO / "workloads" / "bert_base_seq128.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize("name, gemms, weight", [
    ("lenet_300_100", [(1, 784, 300), (1, 300, 100), (1, 100, 10)], [0.08, 0.09, 0.26]),
    ("lenet5", [(576, 25, 20), (64, 500, 50), (1, 800, 500), (1, 500, 10)], [0.66, 0.12, 0.08, 0.19]),
    ("neuraltalk", [(1, 4096, 600), (1, 600, 8791), (1, 1201, 2400)], [0.10, 0.11, 0.10]),
    ("tiny_conv", [(256, 72, 16), (256, 16, 8), (1, 2048, 10)], [1.0, 1.0, 1.0]),
])
def test_small_networks(name, gemms, weight):
    net = load(name)
    assert [(g.m, g.k, g.n) for g in (layer.gemm() for layer in net.layers)] == gemms
    assert [layer.weight_density for layer in net.layers] == weight


def test_resnet18_cifar10_has_bmxnets_weight_count():
    """11.16 M weights: 44.7 MB at 32 bits, the full-precision size BMXNet gives (Yang et al., ACM MM 2017)."""
    net = load("resnet18_cifar10")
    assert sum(layer.weight_elements for layer in net.layers) == 11_164_352
    assert net.layers[-1].weight_elements == 512 * 10 and convs(net)[-1].out_h == 4
