"""ONNX importer: a trained model's Conv / Gemm / MatMul layers become a workload with real weights.

:func:`import_onnx` reads an ``.onnx`` file (optional extra ``onnx``), infers every tensor
shape from the graph and the input shape, and writes into an output folder:

- ``<name>.yaml``: one workload layer per Conv (strides, pads, groups from the attributes;
  ``auto_pad`` SAME_UPPER / SAME_LOWER / VALID resolved to explicit pads), Gemm (an ``fc``
  layer, batch = rows of A) and MatMul (a ``gemm`` layer when one B serves every row of A:
  leading batch dimensions of A fold into ``m``; a ``batched_gemm`` layer when B has batch
  dimensions, e.g. attention heads, each with its own A and B), with ``weight_density`` = the
  real fraction of non-zero weights;
- ``<layer>.npz`` per layer whose weights are an initializer: ``weights`` in the layout of
  :func:`accel_sim.foundations.workload.operands.weight_shape` (conv ``(K, C/groups, R, S)`` as in ONNX;
  Gemm / MatMul ``(k, n)``, so a ``transB`` Gemm is transposed and ``alpha`` folded in).

Biases, activations, pooling and every other operator are not simulated (listed as skipped).
Input activations are not part of a model file: they are generated at ``input_density``
(1.0 unless edited). A MatMul of two activations (attention) gets a layer without payload.
Every problem is an :class:`~accel_sim.foundations.errors.InputError` naming the file and the node.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from accel_sim.foundations.config.yaml_io import dump_yaml
from accel_sim.foundations.errors import InputError

ONNX_EXTRA_HINT = ("the ONNX importer needs the optional extra 'onnx': python -m pip install -e '.[onnx]' "
                   "(from the clone's folder)")
IMPORTED_OPS = ("Conv", "Gemm", "MatMul")


@dataclass(frozen=True)
class ImportedModel:
    """What an import wrote: the workload file, its layers' payloads and the skipped operators."""

    workload: Path
    layers: tuple[dict, ...]
    payloads: tuple[Path, ...]
    skipped_ops: dict[str, int] = field(default_factory=dict)


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise InputError.single("import-onnx", "onnx", ONNX_EXTRA_HINT) from None
    return onnx


def parse_input_shapes(texts: list[str] | tuple[str, ...]) -> dict[str | None, tuple[int, ...]]:
    """``["1,3,224,224"]`` (the model's only input) or ``["name:1,3,224,224", ...]``."""
    shapes: dict[str | None, tuple[int, ...]] = {}
    for text in texts:
        name, sep, dims = text.rpartition(":")
        try:
            shape = tuple(int(d) for d in dims.split(","))
        except ValueError:
            shape = ()
        if not shape or any(d <= 0 for d in shape):
            raise InputError.single("--input-shape", text, "expected positive dimensions like 1,3,224,224 "
                                    "or name:1,3,224,224")
        shapes[name if sep else None] = shape
    return shapes


def import_onnx(model_path: str | Path, out_dir: str | Path, *, input_shapes: dict[str | None, tuple[int, ...]] |
                None = None, name: str | None = None) -> ImportedModel:
    """Import ``model_path`` into ``out_dir`` (created); returns what was written."""
    onnx = _onnx()
    path = Path(model_path)
    where = str(path)
    if not path.is_file():
        raise InputError.single(where, "", "file not found")
    try:
        model = onnx.load(str(path))
    except Exception as err:  # protobuf DecodeError and friends: the file is not an ONNX model
        raise InputError.single(where, "", f"not a readable ONNX model ({type(err).__name__}: "
                                f"{str(err).splitlines()[0] if str(err) else 'no detail'})") from None
    graph = model.graph
    if not graph.node:
        raise InputError.single(where, "graph", "not a readable ONNX model (the graph has no nodes)")
    initializers = {init.name: init for init in graph.initializer}
    _set_input_shapes(graph, initializers, input_shapes or {}, where)
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception as err:
        raise InputError.single(where, "graph", f"shape inference failed: {str(err).splitlines()[0]}") from None
    shapes = _known_shapes(inferred.graph)
    for init in graph.initializer:
        shapes[init.name] = tuple(int(d) for d in init.dims)

    workload_name = _safe_name(name or path.stem)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries, payloads, skipped, used_names = [], [], {}, set()
    for index, node in enumerate(graph.node):
        if node.op_type not in IMPORTED_OPS:
            skipped[node.op_type] = skipped.get(node.op_type, 0) + 1
            continue
        layer_name = _unique(_safe_name(node.name or f"{node.op_type.lower()}_{index}"), used_names)
        node_where = f"node {node.name or index} ({node.op_type})"
        builder = {"Conv": _conv_entry, "Gemm": _gemm_entry, "MatMul": _matmul_entry}[node.op_type]
        entry, weights = builder(node, shapes, initializers, onnx, where, node_where)
        entry = {"name": layer_name, **entry}
        if weights is not None:
            nonzero = int(np.count_nonzero(weights))
            if nonzero == 0:
                skipped[f"{node.op_type} (all-zero weights)"] = skipped.get(f"{node.op_type} (all-zero weights)", 0) + 1
                continue
            if nonzero < weights.size:
                entry["weight_density"] = nonzero / weights.size
            payload = out / f"{layer_name}.npz"
            np.savez_compressed(payload, weights=weights)
            payloads.append(payload)
            entry["operands"] = payload.name
        entries.append(entry)
    if not entries:
        raise InputError.single(where, "graph", f"no Conv, Gemm or MatMul layer with weights to import "
                                f"(operators found: {', '.join(sorted(skipped)) or 'none'})")
    workload = out / f"{workload_name}.yaml"
    _write_workload(workload, workload_name, path, entries, skipped)
    return ImportedModel(workload=workload, layers=tuple(entries), payloads=tuple(payloads), skipped_ops=skipped)


def _set_input_shapes(graph: Any, initializers: dict, given: dict[str | None, tuple[int, ...]], where: str) -> None:
    inputs = [i for i in graph.input if i.name not in initializers]
    for key, shape in given.items():
        if key is None:
            if len(inputs) != 1:
                raise InputError.single("--input-shape", ",".join(map(str, shape)),
                                        f"the model has {len(inputs)} inputs ({', '.join(i.name for i in inputs)}); "
                                        "name one as name:1,3,224,224")
            target = inputs[0]
        else:
            matches = [i for i in inputs if i.name == key]
            if not matches:
                raise InputError.single("--input-shape", key, f"no such model input; inputs: "
                                        f"{', '.join(i.name for i in inputs)}")
            target = matches[0]
        dims = target.type.tensor_type.shape.dim
        if len(dims) != len(shape):
            raise InputError.single("--input-shape", target.name, f"the model input has {len(dims)} dimensions, "
                                    f"got {len(shape)}")
        for dim, value in zip(dims, shape):
            dim.ClearField("dim_param")
            dim.dim_value = value


def _known_shapes(graph: Any) -> dict[str, tuple[int, ...] | None]:
    """Tensor name -> shape, or None when a dimension is symbolic / unknown."""
    shapes: dict[str, tuple[int, ...] | None] = {}
    for info in list(graph.input) + list(graph.value_info) + list(graph.output):
        tensor = info.type.tensor_type
        if not tensor.HasField("shape"):
            shapes[info.name] = None
            continue
        dims = [d.dim_value if d.HasField("dim_value") and d.dim_value > 0 else None for d in tensor.shape.dim]
        shapes[info.name] = None if any(d is None for d in dims) else tuple(int(d) for d in dims)
    return shapes


def _shape(shapes: dict, tensor: str, where: str, node_where: str) -> tuple[int, ...]:
    shape = shapes.get(tensor)
    if shape is None:
        raise InputError.single(where, node_where, f"the shape of input {tensor!r} is unknown or symbolic; give the "
                                "model's input shape with --input-shape 1,3,224,224")
    return shape


def _weights(initializers: dict, tensor: str, onnx: Any, where: str, node_where: str) -> np.ndarray:
    array = onnx.numpy_helper.to_array(initializers[tensor])
    if array.dtype.kind not in "biuf":
        raise InputError.single(where, node_where, f"weights {tensor!r} have dtype {array.dtype}; expected real numbers")
    with np.errstate(over="ignore"):
        weights = np.ascontiguousarray(array, dtype=np.float32)
    if not np.isfinite(weights).all():
        raise InputError.single(where, node_where, f"weights {tensor!r} contain NaN or infinity")
    return weights


def _attributes(node: Any, onnx: Any) -> dict[str, Any]:
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _conv_entry(node, shapes, initializers, onnx, where, node_where):
    if len(node.input) < 2 or node.input[1] not in initializers:
        raise InputError.single(where, node_where, "Conv weights must be an initializer (a constant of the model)")
    weights = _weights(initializers, node.input[1], onnx, where, node_where)
    x = _shape(shapes, node.input[0], where, node_where)
    if weights.ndim != 4 or len(x) != 4:
        raise InputError.single(where, node_where, f"only 2-D convolutions are supported (input {x}, weights "
                                f"{weights.shape})")
    attrs = _attributes(node, onnx)
    if any(d != 1 for d in attrs.get("dilations", [1, 1])):
        raise InputError.single(where, node_where, f"dilations {list(attrs['dilations'])} are not supported "
                                "(the simulator's convolutions are not dilated)")
    batch, channels, height, width = x
    out_channels, per_group, kh, kw = weights.shape
    groups = int(attrs.get("group", 1))
    if per_group * groups != channels:
        raise InputError.single(where, node_where, f"weights {weights.shape} with group {groups} do not match "
                                f"{channels} input channels")
    sh, sw = (int(s) for s in attrs.get("strides", [1, 1]))
    pads = _conv_pads(attrs, (height, width), (kh, kw), (sh, sw), where, node_where)
    entry = {"type": "conv", "in_h": height, "in_w": width, "in_channels": channels, "out_channels": out_channels,
             "kernel_h": kh, "kernel_w": kw, "stride_h": sh, "stride_w": sw, "pad_top": pads[0],
             "pad_left": pads[1], "pad_bottom": pads[2], "pad_right": pads[3]}
    if groups != 1:
        entry["groups"] = groups
    if batch != 1:
        entry["batch"] = batch
    return entry, weights


def _conv_pads(attrs, size, kernel, strides, where, node_where) -> tuple[int, int, int, int]:
    """(top, left, bottom, right), ONNX's pads order, with auto_pad resolved."""
    auto_pad = attrs.get("auto_pad", b"NOTSET")
    auto_pad = auto_pad.decode() if isinstance(auto_pad, bytes) else str(auto_pad)
    if auto_pad in ("NOTSET", ""):
        pads = [int(p) for p in attrs.get("pads", [0, 0, 0, 0])]
        return pads[0], pads[1], pads[2], pads[3]
    if auto_pad == "VALID":
        return 0, 0, 0, 0
    if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        raise InputError.single(where, node_where, f"unknown auto_pad {auto_pad!r}")
    before, after = [], []
    for length, k, s in zip(size, kernel, strides):
        total = max((math.ceil(length / s) - 1) * s + k - length, 0)
        small, large = total // 2, total - total // 2
        before.append(small if auto_pad == "SAME_UPPER" else large)
        after.append(large if auto_pad == "SAME_UPPER" else small)
    return before[0], before[1], after[0], after[1]


def _gemm_entry(node, shapes, initializers, onnx, where, node_where):
    attrs = _attributes(node, onnx)
    if node.input[1] not in initializers:
        raise InputError.single(where, node_where, "Gemm's B must be an initializer (the layer's weights)")
    if int(attrs.get("transA", 0)):
        raise InputError.single(where, node_where, "Gemm with transA=1 is not supported (A is the activation)")
    weights = _weights(initializers, node.input[1], onnx, where, node_where)
    if weights.ndim != 2:
        raise InputError.single(where, node_where, f"Gemm weights must be 2-D, got {weights.shape}")
    if int(attrs.get("transB", 0)):
        weights = np.ascontiguousarray(weights.T)
    alpha = float(attrs.get("alpha", 1.0))
    if alpha != 1.0:
        weights = (weights * np.float32(alpha)).astype(np.float32)
    a = _shape(shapes, node.input[0], where, node_where)
    if len(a) != 2 or a[1] != weights.shape[0]:
        raise InputError.single(where, node_where, f"A {a} does not match the weights ({weights.shape[0]} rows)")
    entry = {"type": "fc", "in_features": weights.shape[0], "out_features": weights.shape[1]}
    if a[0] != 1:
        entry["batch"] = a[0]
    return entry, weights


def _matmul_entry(node, shapes, initializers, onnx, where, node_where):
    a = _shape(shapes, node.input[0], where, node_where)
    if len(a) < 2:
        raise InputError.single(where, node_where, f"MatMul operand A {a} must have 2 or more dimensions")
    if node.input[1] in initializers:
        weights = _weights(initializers, node.input[1], onnx, where, node_where)
        if weights.ndim != 2:
            raise InputError.single(where, node_where, f"MatMul weights must be 2-D, got {weights.shape}")
        b: tuple[int, ...] = weights.shape
    else:  # two activations (e.g. attention scores): shapes only, operands generated
        weights = None
        b = _shape(shapes, node.input[1], where, node_where)
        if len(b) < 2:
            raise InputError.single(where, node_where, f"MatMul operand B {b} must have 2 or more dimensions")
    k, n = b[-2], b[-1]
    if a[-1] != k:
        raise InputError.single(where, node_where, f"A {a} does not match B's {k} rows")
    if math.prod(b[:-2]) == 1:  # one B shared by every row of A: the batch folds into m
        return {"type": "gemm", "m": math.prod(a[:-1]), "k": k, "n": n}, weights
    try:
        batch = np.broadcast_shapes(a[:-2], b[:-2])
    except ValueError:
        raise InputError.single(where, node_where, f"the batch dimensions of MatMul {a} x {b} do not "
                                "broadcast") from None
    # Each batch element (e.g. attention head) multiplies its own A and B: a batched GEMM.
    return {"type": "batched_gemm", "instances": math.prod(batch), "m": a[-2], "k": k, "n": n}, weights


def _safe_name(text: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9_]+", "_", text).strip("_")
    return cleaned or "layer"


def _unique(name: str, used: set[str]) -> str:
    candidate, suffix = name, 2
    while candidate in used:
        candidate, suffix = f"{name}_{suffix}", suffix + 1
    used.add(candidate)
    return candidate


def _write_workload(path: Path, name: str, model: Path, entries: list[dict], skipped: dict[str, int]) -> None:
    header = [
        f"# Imported from {model.name} by `accel-sim import-onnx`.",
        "# Shapes: inferred from the ONNX graph; strides, pads and groups from the node attributes.",
        "# weight_density: the real fraction of non-zero weights of each layer's initializer; the",
        "# weights themselves are in the .npz payload named by `operands` (layout: conv (K, C/groups, R, S),",
        "# fc / gemm (k, n)). input_density is not in a model file: inputs are generated (dense unless edited).",
        f"# Not simulated: {', '.join(f'{op} x{count}' for op, count in sorted(skipped.items())) or 'nothing'}"
        " (biases, activations, pooling and other operators).",
    ]
    body = {"name": name, "description": f"{model.name} imported from ONNX",
            "source": f"ONNX model {model.name} (accel-sim import-onnx)", "layers": entries}
    text = dump_yaml(body, default_flow_style=None, width=200)
    path.write_text("\n".join(header) + "\n" + text, encoding="utf-8")
