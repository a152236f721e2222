"""Workload files (YAML and SCALE-Sim CSV): parsing and bad-input errors."""
from pathlib import Path

import pytest

from accel_sim import InputError, load_workload
from accel_sim.foundations.workload import ConvLayer, GemmLayer

LAYER = "{name: c1, type: conv, in_h: 8, in_w: 8, in_channels: 4, out_channels: 8, kernel: 3, padding: 1}"


def write(tmp_path: Path, text: str, name: str = "w.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_yaml_layers_of_every_type(tmp_path):
    net = load_workload(write(tmp_path, f"""name: n
layers:
  - {LAYER}
  - {{name: dw, type: conv, in_h: 8, in_w: 8, in_channels: 8, out_channels: 8, kernel: 3, stride: 2, padding: 1, groups: 8}}
  - {{name: fc, type: fc, in_features: 128, out_features: 10, batch: 4}}
  - {{name: g, type: gemm, m: 3, k: 5, n: 7, weight_sparsity: "2:4"}}
"""))
    conv, dw, fc, gemm = net.layers
    assert isinstance(conv, ConvLayer) and (conv.out_h, conv.out_w) == (8, 8)
    assert conv.macs == 8 * 8 * 8 * 3 * 3 * 4
    assert dw.is_depthwise and (dw.out_h, dw.out_w) == (4, 4) and dw.macs == 4 * 4 * 8 * 9
    assert isinstance(fc, GemmLayer) and (fc.m, fc.k, fc.n) == (4, 128, 10)
    assert gemm.weight_sparsity.density == 0.5


@pytest.mark.parametrize("entry, path, expected", [
    ("{name: c, type: conv, in_h: 0, in_w: 8, in_channels: 4, out_channels: 8, kernel: 3}", "layers[0] (c)", "in_h must be > 0"),
    ("{name: c, type: conv, in_h: 8, in_w: 8, in_channels: 4, out_channels: -8, kernel: 3}", "layers[0] (c)", "out_channels must be > 0"),
    ("{name: c, type: conv, in_h: 4, in_w: 4, in_channels: 4, out_channels: 8, kernel: 7}", "layers[0] (c)", "larger than the padded input"),
    ("{name: c, type: conv, in_h: 8, in_w: 8, in_channels: 4, out_channels: 8}", "layers[0] (c)", "needs 'kernel'"),
    ("{name: c, type: conv, in_h: 8, in_w: 8, in_channels: 6, out_channels: 8, kernel: 3, groups: 4}", "layers[0] (c)", "divisible by groups"),
    ("{name: f, type: fc, in_features: 10}", "layers[0] (f)", "needs out_features"),
    ("{name: f, type: fc, in_features: 10, out_features: 5, kernel: 3}", "layers[0] (f)", "does not take kernel"),
    ("{name: g, type: gemm, m: 1, k: 2, n: 3, weight_sparsity: half}", "layers[0] (g)", "N:M sparsity like '2:4'"),
    ("{name: g, type: gemm, m: 1, k: 2, n: 3, weight_sparsity: '5:4'}", "layers[0] (g)", "1 <= N <= M"),
    ("{name: g, type: gemm, m: 1, k: 2, n: 3, weight_density: 1.5}", "layers[0] (g)", r"weight_density must be in \(0, 1\]"),
    ("{name: g, type: matmul, m: 1, k: 2, n: 3}", "layers[0].type", "one of conv, fc, gemm"),
    ("{name: g, type: gemm, m: 1, k: 2, n: 3, depth: 4}", "layers[0].depth", "unknown field"),
])
def test_bad_layer_names_file_and_field(tmp_path, entry, path, expected):
    file = write(tmp_path, f"name: n\nlayers:\n  - {entry}\n")
    with pytest.raises(InputError, match=expected) as info:
        load_workload(file)
    assert [p.path for p in info.value.problems] == [path]
    assert info.value.problems[0].file == str(file)


def test_duplicate_layer_names_and_empty_network(tmp_path):
    with pytest.raises(InputError, match="repeated: c1"):
        load_workload(write(tmp_path, f"name: n\nlayers:\n  - {LAYER}\n  - {LAYER}\n"))
    with pytest.raises(InputError, match="at least one layer"):
        load_workload(write(tmp_path, "name: n\nlayers: []\n"))


CONV_HEADER = "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides,\n"


def test_scalesim_conv_and_gemm_csv(tmp_path):
    conv = load_workload(write(tmp_path, CONV_HEADER + "Conv1,224,224,7,7,3,64,2,\n", "t.csv"))
    (layer,) = conv.layers
    assert (layer.out_h, layer.out_w, layer.gemm().k, layer.gemm().n) == (110, 110, 147, 64)  # SCALE-Sim keeps the partial last window
    gemm = load_workload(write(tmp_path, "Layer Name, M, N, K, Sparsity,\nT1, 256, 128, 512, 2:4,\n", "g.csv"))
    (g,) = gemm.layers
    assert (g.m, g.n, g.k, str(g.weight_sparsity)) == (256, 128, 512, "2:4")


@pytest.mark.parametrize("body, where, expected", [
    ("Conv1,224,224,7,7,3,64,\n", "line 2", "expected 8 values"),
    ("Conv1,224,x,7,7,3,64,2,\n", "line 2, ifmap_width", "whole number"),
    ("Conv1,5,5,7,7,3,64,1,\n", "line 2 (Conv1)", "larger than the padded input"),
    ("Conv1,5,5,3,3,3,0,1,\n", "line 2 (Conv1)", "out_channels must be > 0"),
    ("Conv1,8,8,3,3,3,4,1,2-4,\n", "line 2 (Conv1)", "N:M sparsity"),
])
def test_malformed_scalesim_rows(tmp_path, body, where, expected):
    file = write(tmp_path, CONV_HEADER + body, "t.csv")
    with pytest.raises(InputError, match=expected) as info:
        load_workload(file)
    assert info.value.problems[0].path == where and info.value.problems[0].file == str(file)


def test_csv_with_unknown_header(tmp_path):
    with pytest.raises(InputError, match="neither SCALE-Sim conv"):
        load_workload(write(tmp_path, "a,b,c\n1,2,3\n", "t.csv"))
