"""ONNX importer: small models built with onnx.helper import into workloads whose layers have
the right shapes and whose payload weights round-trip; bad models give one-line InputErrors."""
from __future__ import annotations

import builtins

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from accel_sim.foundations.errors import InputError  # noqa: E402
from accel_sim.foundations.workload.onnx_model import import_onnx, parse_input_shapes  # noqa: E402
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer  # noqa: E402
from accel_sim.foundations.workload.loader import load_workload  # noqa: E402
from accel_sim.foundations.workload.operands import layer_operands  # noqa: E402

RNG = np.random.default_rng(0)


def sparse(shape, density):
    w = RNG.standard_normal(shape).astype(np.float32)
    w[RNG.random(shape) > density] = 0
    return w


W1 = sparse((8, 3, 3, 3), 0.5)       # conv1: 3 -> 8, 3x3, stride 2, pads 1
W2 = sparse((8, 2, 3, 3), 0.3)       # conv2: grouped (4 groups), SAME_UPPER
WG = sparse((10, 8 * 4 * 4), 0.1)    # gemm: transB=1, (out, in)
WM = sparse((10, 6), 0.6)            # matmul: (k, n)


def build_model(batch="N", dilations=None):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 6])
    conv1_attrs = {"strides": [2, 2], "pads": [1, 1, 1, 1], "kernel_shape": [3, 3]}
    if dilations:
        conv1_attrs["dilations"] = dilations
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", **conv1_attrs),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2/grouped", group=4, auto_pad="SAME_UPPER"),
        helper.make_node("Flatten", ["c2"], ["f"], name="flatten", axis=1),
        helper.make_node("Gemm", ["f", "wg", "bg"], ["g"], name="fc", transB=1),
        helper.make_node("MatMul", ["g", "wm"], ["y"], name="head"),
    ]
    inits = [numpy_helper.from_array(W1, "w1"), numpy_helper.from_array(np.zeros(8, np.float32), "b1"),
             numpy_helper.from_array(W2, "w2"), numpy_helper.from_array(WG, "wg"),
             numpy_helper.from_array(np.zeros(10, np.float32), "bg"), numpy_helper.from_array(WM, "wm")]
    graph = helper.make_graph(nodes, "tiny", [x], [y], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


@pytest.fixture
def model_file(tmp_path):
    path = tmp_path / "tiny_net.onnx"
    onnx.save(build_model(), str(path))
    return path


def test_import_round_trips_shapes_and_weights(model_file, tmp_path):
    result = import_onnx(model_file, tmp_path / "out", input_shapes=parse_input_shapes(["1,3,8,8"]))
    assert result.skipped_ops == {"Relu": 1, "Flatten": 1}
    net = load_workload(result.workload)
    assert [layer.name for layer in net.layers] == ["conv1", "conv2_grouped", "fc", "head"]
    conv1, conv2, fc, head = net.layers
    assert isinstance(conv1, ConvLayer) and (conv1.in_h, conv1.in_channels, conv1.out_channels) == (8, 3, 8)
    assert (conv1.stride_h, conv1.pad_top, conv1.pad_right, conv1.out_h) == (2, 1, 1, 4)
    assert conv2.groups == 4 and conv2.in_h == 4 and conv2.out_h == 4 and conv2.pad_top == conv2.pad_bottom == 1
    assert isinstance(fc, GemmLayer) and (fc.m, fc.k, fc.n) == (1, 128, 10)
    assert (head.m, head.k, head.n) == (1, 10, 6)
    np.testing.assert_array_equal(layer_operands(conv1).weights, W1)
    np.testing.assert_array_equal(layer_operands(conv2).weights, W2)
    np.testing.assert_array_equal(layer_operands(fc).weights, WG.T)  # (k, n)
    np.testing.assert_array_equal(layer_operands(head).weights, WM)
    for layer, weights in zip(net.layers, (W1, W2, WG, WM)):
        assert layer.weight_density == pytest.approx(np.count_nonzero(weights) / weights.size)
    assert net.macs == 8 * 27 * 16 + 8 * 18 * 16 + 128 * 10 + 60
    assert "Imported from tiny_net.onnx" in result.workload.read_text()


def test_import_is_deterministic_and_runs_on_the_storage_table(model_file, tmp_path):
    from accel_sim.foundations.workload.storage import StorageOptions, storage_table
    a = import_onnx(model_file, tmp_path / "a", input_shapes={None: (1, 3, 8, 8)})
    b = import_onnx(model_file, tmp_path / "b", input_shapes={None: (1, 3, 8, 8)})
    assert a.workload.read_text() == b.workload.read_text()
    table = storage_table(load_workload(a.workload), StorageOptions("csr"))
    nnz = [np.count_nonzero(w) for w in (W1, W2, WG, WM)]
    assert table.nnz[:4].tolist() == nnz


def test_batch_from_the_input_shape_and_named_inputs(model_file, tmp_path):
    result = import_onnx(model_file, tmp_path / "o", input_shapes=parse_input_shapes(["x:2,3,8,8"]))
    conv1, _, fc, head = load_workload(result.workload).layers
    assert conv1.batch == 2 and fc.m == 2 and head.m == 2


def test_matmul_of_two_activations_gets_a_layer_without_payload(tmp_path):
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [4, 8])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [8, 5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 5])
    graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"], name="qk")], "att", [a, b], [y])
    path = tmp_path / "att.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    result = import_onnx(path, tmp_path / "o")
    (layer,) = load_workload(result.workload).layers
    assert (layer.m, layer.k, layer.n) == (4, 8, 5) and layer.operands.payload is None and not result.payloads


@pytest.mark.parametrize(("content", "message"), [
    (b"this is not a protobuf \xff\xfe", "not a readable ONNX model"),
    (b"", "not a readable ONNX model"),
])
def test_corrupt_files_are_one_line_errors(tmp_path, content, message):
    path = tmp_path / "bad.onnx"
    path.write_bytes(content)
    with pytest.raises(InputError, match=message) as info:
        import_onnx(path, tmp_path / "o")
    assert len(info.value.problems) == 1 and "\n" not in str(info.value)


def test_symbolic_batch_needs_an_input_shape(model_file, tmp_path):
    with pytest.raises(InputError, match="give the model's input shape with --input-shape"):
        import_onnx(model_file, tmp_path / "o")


@pytest.mark.parametrize(("shapes", "message"), [
    (["1,3,8"], "the model input has 4 dimensions, got 3"),
    (["y:1,3,8,8"], "no such model input"),
    (["1,-3,8,8"], "expected positive dimensions"),
    (["a,b"], "expected positive dimensions"),
])
def test_bad_input_shapes(model_file, tmp_path, shapes, message):
    with pytest.raises(InputError, match=message):
        import_onnx(model_file, tmp_path / "o", input_shapes=parse_input_shapes(shapes))


def test_unsupported_attributes_name_the_node(tmp_path):
    path = tmp_path / "dilated.onnx"
    onnx.save(build_model(batch=1, dilations=[2, 2]), str(path))
    with pytest.raises(InputError, match=r"node conv1 \(Conv\): dilations \[2, 2\] are not supported"):
        import_onnx(path, tmp_path / "o")


def test_missing_onnx_names_the_extra(model_file, tmp_path, monkeypatch):
    real_import = builtins.__import__

    def no_onnx(name, *args, **kwargs):
        if name == "onnx" or name.startswith("onnx."):
            raise ImportError("No module named 'onnx'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_onnx)
    with pytest.raises(InputError, match=r"optional extra 'onnx'"):
        import_onnx(model_file, tmp_path / "o")
