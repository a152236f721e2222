"""`accel-sim import-onnx`: writes a workload that `accel-sim storage` / `run` can read; bad files exit 2."""
import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from accel_sim.cli.main import main  # noqa: E402
from accel_sim.foundations.workload.loader import load_workload  # noqa: E402
from accel_sim.foundations.workload.operands import layer_operands  # noqa: E402


@pytest.fixture
def mlp(tmp_path):
    rng = np.random.default_rng(1)
    w1 = rng.standard_normal((16, 12)).astype(np.float32)
    w1[np.abs(w1) < 1.0] = 0
    w2 = rng.standard_normal((12, 4)).astype(np.float32)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"], name="hidden"),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "w2"], ["y"], name="out", alpha=0.5)]
    graph = helper.make_graph(nodes, "mlp", [x], [y], initializer=[numpy_helper.from_array(w1, "w1"),
                                                                   numpy_helper.from_array(w2, "w2")])
    path = tmp_path / "mlp.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path, w1, w2


def test_import_then_storage(mlp, tmp_path, capsys):
    path, w1, w2 = mlp
    out = tmp_path / "imported"
    assert main(["import-onnx", str(path), "--out", str(out), "--name", "my_mlp"]) == 0
    printed = capsys.readouterr().out
    assert "imported 2 layers" in printed and "not simulated: Relu x1" in printed
    workload = out / "my_mlp.yaml"
    hidden, head = load_workload(workload).layers
    np.testing.assert_array_equal(layer_operands(hidden).weights, w1)
    np.testing.assert_array_equal(layer_operands(head).weights, 0.5 * w2)  # Gemm alpha folded into the weights
    assert hidden.weight_density == pytest.approx(np.count_nonzero(w1) / w1.size)
    assert main(["storage", "--workload", str(workload), "--format", "bitmap"]) == 0
    assert "hidden" in capsys.readouterr().out


@pytest.mark.parametrize(("content", "message"), [
    (b"\x08\x07garbage\xff", "not a readable ONNX model"),
    (None, "file not found"),
])
def test_bad_model_exits_2_with_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "broken.onnx"
    if content is not None:
        path.write_bytes(content)
    assert main(["import-onnx", str(path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_bad_input_shape_exits_2(mlp, tmp_path, capsys):
    path, _, _ = mlp
    assert main(["import-onnx", str(path), "--out", str(tmp_path / "o"), "--input-shape", "1,x"]) == 2
    assert "expected positive dimensions" in capsys.readouterr().err
