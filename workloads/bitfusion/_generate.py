"""Writes the eight Bit Fusion benchmark networks (``workloads/bitfusion/*.yaml``) with their per-layer precisions.

Source: the Bit Fusion authors' simulator, hsharma35/bitfusion (commit 0246bc4),
``bitfusion/src/benchmarks/benchmarks.py``: ``benchlist`` (the eight networks) and one ``get_*`` function per
network giving every layer's shape, its weight dtype (``w_dtype``) and the dtype of its input tensor (the
previous layer's output dtype ``c_dtype`` / ``f_dtype``, or the ``data`` tensor's). ``Bin`` is 1 bit, ``FXPn``
n bits. A layer's ``activation_bits`` is its input's dtype, ``weight_bits`` its ``w_dtype``.
Conventions: 'SAME' padding at stride 1 is (kernel - 1) / 2; pooling (2 x 2) halves the map (stride 2 where
the file gives none); convolutional networks at batch 1 (the file uses 16; every image is its own pass, so the
speed-up ratio is the same), the RNN and LSTM GEMMs at the file's batch 16 (m = 16).
Run: ``python workloads/bitfusion/_generate.py`` (rewrites the YAML files next to it).
"""
from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = "hsharma35/bitfusion 0246bc4, bitfusion/src/benchmarks/benchmarks.py"


def conv(name, size, cin, cout, kernel, a, w, stride=1, padding=None):
    pad = (kernel - 1) // 2 if padding is None else padding
    return (f"  - {{name: {name}, type: conv, in_h: {size}, in_w: {size}, in_channels: {cin}, out_channels: {cout}, "
            f"kernel: {kernel}, stride: {stride}, padding: {pad}, activation_bits: {a}, weight_bits: {w}}}")


def fc(name, k, n, a, w):
    return (f"  - {{name: {name}, type: fc, in_features: {k}, out_features: {n}, activation_bits: {a}, "
            f"weight_bits: {w}}}")


def gemm(name, m, k, n, a, w):
    return f"  - {{name: {name}, type: gemm, m: {m}, k: {k}, n: {n}, activation_bits: {a}, weight_bits: {w}}}"


def alexnet():
    layers = [conv(f"conv1_{h}", 227, 3, 48, 11, 8, 4, stride=4, padding=0) for h in "ab"]
    layers += [conv(f"conv2_{h}", 27, 48, 128, 5, 4, 4) for h in "ab"]
    layers += [conv(f"conv3_{h}", 13, 256, 192, 3, 4, 4) for h in "ab"]
    layers += [conv(f"conv4_{h}", 13, 192, 192, 3, 4, 4) for h in "ab"]
    layers += [conv(f"conv5_{h}", 13, 192, 128, 3, 4, 4) for h in "ab"]
    layers += [fc("fc1", 9216, 4096, 4, 4), fc("fc2", 4096, 4096, 4, 4), fc("fc3", 4096, 1000, 8, 8)]
    return "get_alex_net (DoReFa-style 4-bit layers; input 8 bits; fc3 8 bits)", layers


def svhn():
    layers = [conv("conv0", 32, 3, 64, 3, 8, 1), conv("conv1", 32, 64, 64, 3, 1, 1),
              conv("conv2", 16, 64, 128, 3, 1, 1), conv("conv3", 16, 128, 128, 3, 1, 1),
              conv("conv4", 8, 128, 256, 3, 1, 1), conv("conv5", 8, 256, 256, 3, 1, 1),
              fc("fc6", 4096, 1024, 1, 1), fc("fc7", 1024, 1024, 1, 1), fc("fc8", 1024, 10, 1, 1)]
    return "get_svhn_qnn (QNN: binary weights; input 8 bits, binary activations after)", layers


def cifar10():
    layers = [conv("conv0", 32, 3, 128, 3, 8, 8), conv("conv1", 32, 128, 128, 3, 2, 2),
              conv("conv2", 16, 128, 256, 3, 2, 2), conv("conv3", 16, 256, 256, 3, 2, 2),
              conv("conv4", 8, 256, 512, 3, 2, 2), conv("conv5", 8, 512, 512, 3, 2, 2),
              fc("fc6", 8192, 1024, 2, 2), fc("fc7", 1024, 1024, 2, 2), fc("fc8", 1024, 10, 2, 2)]
    return "get_cifar10_qnn (QNN: 2-bit layers; conv0 8 bits)", layers


def lenet5():
    layers = [conv("conv0", 32, 1, 32, 5, 2, 2), conv("conv1", 16, 32, 64, 5, 2, 2),
              fc("fc1", 4096, 512, 2, 2), fc("fc2", 512, 10, 2, 2)]
    return "get_lenet_5_twn (TWN: 2-bit layers)", layers


def vgg7():
    layers = [conv(f"conv1_{h}", 32, 3, 128, 3, 2, 2) for h in "ab"]
    layers += [conv(f"conv2_{h}", 16, 128, 256, 3, 2, 2) for h in "ab"]
    layers += [conv(f"conv3_{h}", 8, 256, 512, 3, 2, 2) for h in "ab"]
    layers += [fc("fc1", 8192, 1024, 2, 2)]
    return "get_vgg_7_twn (TWN: 2-bit layers)", layers


def resnet18():
    layers = [conv("conv1_a", 224, 3, 64, 7, 8, 8, stride=2, padding=3)]
    size, cin = 56, 64
    for module, cout in ((2, 64), (3, 128), (4, 256), (5, 512)):
        for i in (1, 2):
            stride = 2 if module > 2 and i == 1 else 1
            layers.append(conv(f"conv{module}_{i}_a", size, cin, cout, 1, 4, 4, stride=stride))
            size = size // stride
            layers.append(conv(f"conv{module}_{i}_b", size, cout, cout, 3, 4, 4))
            cin = cout
    return "get_resnet_18_twn (4-bit layers; conv1 8 bits; the file's 1x1 + 3x3 modules, no FC)", layers


def rnn():
    return "get_RNN('RNN', 2048) (4 bits)", [gemm("matmul", 16, 4096, 4096, 4, 4)]


def lstm():
    return "get_LSTM('LSTM', 900) (4 bits)", [gemm("matmul", 16, 3600, 3600, 4, 4)]


NETWORKS = {"alexnet": alexnet, "svhn": svhn, "cifar10": cifar10, "lenet5": lenet5, "vgg7": vgg7,
            "resnet18": resnet18, "rnn": rnn, "lstm": lstm}


def render(name: str) -> str:
    function, layers = NETWORKS[name]()
    return "\n".join([
        f"# Bit Fusion benchmark {name}: {SOURCE}, {function}.",
        "# Generated by workloads/bitfusion/_generate.py (conventions in its docstring).",
        f"name: bitfusion_{name}",
        f"description: \"Bit Fusion's {name} benchmark with its per-layer precisions\"",
        f"source: \"{SOURCE}\"",
        "layers:", *layers, ""])


if __name__ == "__main__":
    for network in NETWORKS:
        (HERE / f"{network}.yaml").write_text(render(network), encoding="utf-8")
