"""Write ``model.onnx``: a small CNN the README's ``accel-sim import-onnx`` line imports.

Run from anywhere: ``python examples/_generate_model_onnx.py`` (needs the optional extra
``onnx``: ``python -m pip install -e '.[onnx]'``; rewrites ``model.onnx`` next to this
script, byte for byte the same: fixed seed, fixed producer fields).

Not a published model: random weights (seed 0), magnitude-pruned so the imported
workload shows a weight density below 1. Input 1 x 3 x 8 x 8.

  conv1  Conv 3 -> 8, 3 x 3, pad 1        -> 1 x 8 x 8 x 8   (half of the weights pruned)
  relu1  Relu                              (not simulated)
  conv2  Conv 8 -> 16, 3 x 3, stride 2, pad 1 -> 1 x 16 x 4 x 4 (three quarters pruned)
  flat   Flatten                           (not simulated)
  fc     Gemm 256 -> 10                    (dense)
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = Path(__file__).resolve().parent / "model.onnx"
SEED = 0
OPSET = 13


def _pruned(rng: np.random.Generator, shape: tuple[int, ...], density: float) -> np.ndarray:
    weights = rng.standard_normal(shape).astype(np.float32)
    keep = int(round(density * weights.size))
    threshold = np.sort(np.abs(weights).ravel())[::-1][keep - 1]
    return np.where(np.abs(weights) >= threshold, weights, np.float32(0)).astype(np.float32)


def build() -> onnx.ModelProto:
    rng = np.random.default_rng(SEED)
    inits = [numpy_helper.from_array(_pruned(rng, (8, 3, 3, 3), 0.5), "w1"),
             numpy_helper.from_array(_pruned(rng, (16, 8, 3, 3), 0.25), "w2"),
             numpy_helper.from_array(_pruned(rng, (256, 10), 1.0), "w3"),
             numpy_helper.from_array(np.zeros(10, np.float32), "b3")]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], name="conv1", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                              strides=[2, 2]),
             helper.make_node("Flatten", ["c2"], ["f"], name="flat", axis=1),
             helper.make_node("Gemm", ["f", "w3", "b3"], ["y"], name="fc")]
    graph = helper.make_graph(nodes, "model", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="accel_sim",
                              producer_version="1")
    onnx.checker.check_model(model)
    return model


if __name__ == "__main__":
    onnx.save(build(), str(OUT))
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes)")
