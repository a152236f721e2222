"""ONNX importer, batched MatMul: per-head products of two activations become one batched GEMM
(each head its own operands), not one GEMM whose m folds the heads over a shared operand."""
from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from accel_sim import load_arch  # noqa: E402
from accel_sim.foundations.errors import InputError  # noqa: E402
from accel_sim.foundations.workload.onnx_model import import_onnx  # noqa: E402
from accel_sim.pipeline.simulate import simulate  # noqa: E402
from accel_sim.foundations.workload.layer import BatchedGemmLayer, GemmLayer  # noqa: E402
from accel_sim.foundations.workload.loader import load_workload  # noqa: E402

BATCH, HEADS, SEQ, HEAD_DIM, HIDDEN = 2, 3, 4, 8, 24


def attention_model():
    """x (B, S, hidden) @ Wq -> reshape (B, S, H, d) -> transpose (B, H, S, d); scores = q @ k^T
    with k^T (B, H, d, S) a model input; context = scores @ v with v (B, H, S, d)."""
    wq = np.random.default_rng(0).standard_normal((HIDDEN, HIDDEN)).astype(np.float32)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [BATCH, SEQ, HIDDEN]),
              helper.make_tensor_value_info("kt", TensorProto.FLOAT, [BATCH, HEADS, HEAD_DIM, SEQ]),
              helper.make_tensor_value_info("v", TensorProto.FLOAT, [BATCH, HEADS, SEQ, HEAD_DIM])]
    out = helper.make_tensor_value_info("ctx", TensorProto.FLOAT, [BATCH, HEADS, SEQ, HEAD_DIM])
    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q2"], name="q_proj"),
        helper.make_node("Reshape", ["q2", "shape"], ["q3"], name="split_heads"),
        helper.make_node("Transpose", ["q3"], ["q"], name="heads_first", perm=[0, 2, 1, 3]),
        helper.make_node("MatMul", ["q", "kt"], ["scores"], name="scores"),
        helper.make_node("MatMul", ["scores", "v"], ["ctx"], name="context"),
    ]
    inits = [numpy_helper.from_array(wq, "wq"),
             numpy_helper.from_array(np.array([BATCH, SEQ, HEADS, HEAD_DIM], np.int64), "shape")]
    graph = helper.make_graph(nodes, "attention", inputs, [out], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def test_per_head_matmuls_become_batched_gemms(tmp_path):
    path = tmp_path / "attention.onnx"
    onnx.save(attention_model(), str(path))
    result = import_onnx(path, tmp_path / "out")
    q_proj, scores, context = load_workload(result.workload).layers
    # the projection shares one weight matrix over batch and positions: batch folds into m
    assert isinstance(q_proj, GemmLayer) and (q_proj.m, q_proj.k, q_proj.n) == (BATCH * SEQ, HIDDEN, HIDDEN)
    assert q_proj.operands.payload is not None
    # each (sequence, head) has its own K^T and V: batch x heads instances, none sharing an operand
    assert isinstance(scores, BatchedGemmLayer)
    assert (scores.instances, scores.m, scores.k, scores.n) == (BATCH * HEADS, SEQ, HEAD_DIM, SEQ)
    assert (context.instances, context.m, context.k, context.n) == (BATCH * HEADS, SEQ, SEQ, HEAD_DIM)
    assert scores.weight_elements == BATCH * HEADS * HEAD_DIM * SEQ  # not HEAD_DIM * SEQ, one shared operand
    run = simulate(load_arch("tpu_like_128x128_ws"), load_workload(result.workload))
    assert list(run.layers_frame()["macs_dense"]) == [BATCH * SEQ * HIDDEN * HIDDEN,
                                                      BATCH * HEADS * SEQ * HEAD_DIM * SEQ,
                                                      BATCH * HEADS * SEQ * SEQ * HEAD_DIM]


def test_broadcast_batch_and_mismatch(tmp_path):
    def model(a_shape, b_shape):
        a = helper.make_tensor_value_info("a", TensorProto.FLOAT, a_shape)
        b = helper.make_tensor_value_info("b", TensorProto.FLOAT, b_shape)
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        graph = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")], "g", [a, b], [y])
        path = tmp_path / f"m{len(list(tmp_path.iterdir()))}.onnx"
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
        return path

    # A (4, 8) broadcast over B's 5 batch elements: 5 instances
    result = import_onnx(model([4, 8], [5, 8, 3]), tmp_path / "o1")
    (layer,) = load_workload(result.workload).layers
    assert (layer.instances, layer.m, layer.k, layer.n) == (5, 4, 8, 3)
    # B with batch 1: one shared operand, the batch of A folds into m
    result = import_onnx(model([6, 4, 8], [1, 8, 3]), tmp_path / "o2")
    (layer,) = load_workload(result.workload).layers
    assert isinstance(layer, GemmLayer) and (layer.m, layer.k, layer.n) == (24, 8, 3)
    with pytest.raises(InputError, match="shape inference failed|do not broadcast"):
        import_onnx(model([2, 4, 8], [3, 8, 3]), tmp_path / "o3")
