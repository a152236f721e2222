"""Training-memory planner: the tensors of one training step, their liveness, and peak memory under
three schedules (pure; sizes in bytes).

Tensors of layer i (``X`` its input, ``Y`` its output, ``d`` the error of a tensor, ``W`` weights):
``W_i`` and (where kept) ``dW_i``; ``X_i`` kept from the forward for the weight gradient; ``Y_i``;
``dY_i`` (the error arriving from above), ``dX_i`` (the input error, not computed for the first layer);
a workspace (the im2col buffer of one sample of a convolution, as Caffe's ``col_buffer``; transient).
Where a workload has layers the simulator does not list between two of its layers (a pooling layer:
``Y_i`` and ``X_i+1`` differ in size), an op of no MACs makes ``X_i+1`` from ``Y_i`` in the forward and
``dY_i`` from ``dX_i+1`` in the backward (it reads ``Y_i``, as a max-pool's backward does); where they
have the same size ``X_i+1`` is ``Y_i``.

Schedules:

- ``conventional``: Caffe's static allocation: every blob's data and error and every parameter's
  value and gradient allocated for the whole step (no reuse), plus the largest workspace;
- ``liveness``: each tensor lives from the op that writes it to the last op that reads it (an ideal
  allocator reuses freed memory); per layer the input error first, then the weight gradient, kept until
  the step's update (the framework's usual order);
- ``reordered``: per layer the order of the two backward GEMMs chosen so the larger of the two
  buffers they would need is reused (the technique issue 18 describes from Fujitsu's 2017 overview; a
  Fujitsu patent application, US 2018/0150745, claims computing the parameter error before the neuron
  error): where the input activation ``X_i`` is larger than the weights, the weight gradient first,
  after which ``X_i`` is dead and ``dX_i`` is written into its memory; where the weights are larger, the
  input error first (it needs the old ``W_i``), then the weight gradient accumulated straight into
  ``W_i`` (the SGD update fused into the GEMM, ``W -= lr X^T dY``, so no ``dW_i`` buffer exists). On one
  device the update needs no communication; a data-parallel step must keep ``dW_i`` for the all-reduce.

The liveness peaks are what an ideal allocator reaches (no fragmentation).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from accel_sim.systems.training.backward import at_batch
from accel_sim.foundations.workload.layer import BatchedGemmLayer, ConvLayer, GemmLayer, Layer, Network

SCHEDULES = ("conventional", "liveness", "reordered")


@dataclass(frozen=True)
class Op:
    name: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    workspace: int = 0          # transient bytes during this op


@dataclass(frozen=True)
class StepTensors:
    """Every tensor of the step (bytes) and the ops of the step in order."""

    sizes: dict[str, int]
    persistent: frozenset[str]      # live for the whole step (weights)
    ops: tuple[Op, ...]


@dataclass(frozen=True)
class MemoryPlan:
    schedule: str
    peak_bytes: int
    peak_op: str
    weights_bytes: int


def _layer_list(network: Network) -> tuple[Layer, ...]:
    for layer in network.layers:
        if isinstance(layer, BatchedGemmLayer):
            raise ValueError(f"{network.name}: layer {layer.name} is a batched GEMM; the planner takes "
                             "convolutions and fully connected layers")
    return network.layers  # type: ignore[return-value]


def _workspace_elements(layer: Layer) -> int:
    """im2col of one sample: k x (out pixels) per group, all groups (0 for a 1x1 stride-1 or fc layer)."""
    if isinstance(layer, ConvLayer) and (layer.kernel_h, layer.kernel_w, layer.stride_h, layer.stride_w) != (1, 1, 1, 1):
        g = layer.gemm()
        return g.k * g.groups * layer.out_h * layer.out_w
    return 0


def _order(layer: Layer, schedule: str) -> str:
    """``"dx"`` (input error first) or ``"dw"`` (weight gradient first)."""
    if schedule != "reordered":
        return "dx"
    return "dw" if layer.input_elements > layer.weight_elements else "dx"


def step_tensors(network: Network, batch: int, bytes_per_element: int, schedule: str) -> StepTensors:
    """The tensors and ops of one step of ``network`` at ``batch``, for ``schedule``'s backward order."""
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {', '.join(SCHEDULES)}, got {schedule!r}")
    layers = [at_batch(layer, batch) for layer in _layer_list(network)]
    e = bytes_per_element
    sizes: dict[str, int] = {}
    ops: list[Op] = []
    x_name = []
    for i, layer in enumerate(layers):
        sizes[f"W{i}"] = layer.weight_elements * e
        if i == 0:
            sizes["X0"] = layer.input_elements * e
            x_name.append("X0")
        elif layer.input_elements == layers[i - 1].output_elements:
            x_name.append(f"Y{i - 1}")
        else:
            sizes[f"X{i}"] = layer.input_elements * e
            x_name.append(f"X{i}")
            ops.append(Op(f"between{i - 1}.forward", (f"Y{i - 1}",), (f"X{i}",)))
        sizes[f"Y{i}"] = layer.output_elements * e
        ops.append(Op(f"{layer.name}.forward", (x_name[i], f"W{i}"), (f"Y{i}",), _workspace_elements(layer) * e))
    last = len(layers) - 1
    sizes[f"dY{last}"] = sizes[f"Y{last}"]
    ops.append(Op("loss", (f"Y{last}",), (f"dY{last}",)))
    fused = set()
    for i in range(last, -1, -1):
        layer = layers[i]
        x, dy = x_name[i], f"dY{i}"
        dx = None
        if i > 0:
            dx = f"dY{i - 1}" if x_name[i] == f"Y{i - 1}" else f"dX{i}"
            sizes[dx] = sizes[x]
        ws = _workspace_elements(layer) * e
        order = _order(layer, schedule)
        fuse = schedule == "reordered" and order == "dx"
        if not fuse:
            sizes[f"dW{i}"] = sizes[f"W{i}"]
        else:
            fused.add(i)
        input_error = Op(f"{layer.name}.input_error", (dy, f"W{i}"), (dx,), ws) if dx is not None else None
        weight_gradient = Op(f"{layer.name}.weight_gradient", (x, dy) + ((f"W{i}",) if fuse else ()),
                             (f"W{i}",) if fuse else (f"dW{i}",), ws)
        pair = [input_error, weight_gradient] if order == "dx" else [weight_gradient, input_error]
        ops += [op for op in pair if op is not None]
        if i > 0 and x_name[i] != f"Y{i - 1}":
            ops.append(Op(f"between{i - 1}.backward", (dx, f"Y{i - 1}"), (f"dY{i - 1}",)))
            sizes[f"dY{i - 1}"] = sizes[f"Y{i - 1}"]
    ops.append(Op("update", tuple(f"dW{i}" for i in range(len(layers)) if i not in fused)
                  + tuple(f"W{i}" for i in range(len(layers))), tuple(f"W{i}" for i in range(len(layers)))))
    return StepTensors(sizes, frozenset(f"W{i}" for i in range(len(layers))), tuple(ops))


def peak_memory(tensors: StepTensors, schedule: str) -> MemoryPlan:
    """Peak bytes of ``tensors`` under ``schedule`` (``conventional``: everything at once)."""
    weights = sum(tensors.sizes[t] for t in tensors.persistent)
    workspace = max(op.workspace for op in tensors.ops)
    if schedule == "conventional":
        return MemoryPlan(schedule, sum(tensors.sizes.values()) + workspace, "(all)", weights)
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for t, op in enumerate(tensors.ops):
        for name in op.reads:
            first.setdefault(name, 0)    # read before any op wrote it: an input of the step (the data)
        for name in op.writes:
            first.setdefault(name, t)
        for name in op.reads + op.writes:
            last[name] = t
    # live bytes at op t: the persistent tensors and every tensor with first <= t <= last (whole bytes, so
    # adding each tensor where it starts and taking it off after it ends gives the same sums exactly)
    live, change = 0, [0] * (len(tensors.ops) + 1)
    for name, size in tensors.sizes.items():
        if name in tensors.persistent:
            live += size
        elif name in first:
            change[first[name]] += size
            change[last[name] + 1] -= size
    peak, where = -1, ""
    for t, op in enumerate(tensors.ops):
        live += change[t]
        if live + op.workspace > peak:
            peak, where = live + op.workspace, op.name
    return MemoryPlan(schedule, peak, where, weights)


def plan_memory(network: Network, batch: int, schedule: str, bytes_per_element: int = 4) -> MemoryPlan:
    """Peak training memory of ``network`` at ``batch`` under ``schedule`` (float32 tensors by default)."""
    return peak_memory(step_tensors(network, batch, bytes_per_element, schedule), schedule)


def widen(network: Network, factor: float) -> Network:
    """``network`` with every layer's width (channels, features) times ``factor``, rounded to a multiple
    of the largest ``groups`` in the network; the first layer's input channels (the data) and the last
    layer's outputs (the classes) kept. A fully connected layer after a convolution keeps its number of
    positions (``k`` / the convolution's channels: a pooled plane flattened)."""
    layers = _layer_list(network)
    last = len(layers) - 1
    quantum = max(layer.groups for layer in layers)

    def scaled(value: int) -> int:
        return max(quantum, round(value * factor / quantum) * quantum)

    out: list[Layer] = []
    for i, layer in enumerate(layers):
        if isinstance(layer, ConvLayer):
            out.append(dataclasses.replace(layer, in_channels=layer.in_channels if i == 0 else scaled(layer.in_channels),
                                           out_channels=layer.out_channels if i == last else scaled(layer.out_channels)))
            continue
        assert isinstance(layer, GemmLayer)
        previous = layers[i - 1] if i else None
        if isinstance(previous, ConvLayer) and layer.k % previous.out_channels == 0:
            k = layer.k // previous.out_channels * out[-1].out_channels  # type: ignore[union-attr]
        else:
            k = layer.k if i == 0 else scaled(layer.k)
        out.append(dataclasses.replace(layer, k=k, n=layer.n if i == last else scaled(layer.n)))
    return dataclasses.replace(network, name=f"{network.name}_x{factor:g}", layers=tuple(out))


def largest(fits: Callable[[float], bool], low: float, high: float, integer: bool, steps: int = 40) -> float:
    """The largest value in [low, high] for which ``fits`` holds (``fits`` monotone; ``low`` must fit)."""
    if not fits(low):
        return 0.0
    while fits(high) and high < 1e6:
        low, high = high, high * 2
    for _ in range(steps):
        if (high - low) <= (1 if integer else 1e-3 * low):
            break
        middle = (low + high) // 2 if integer else (low + high) / 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low


def largest_batch(network: Network, memory_bytes: float, schedule: str, bytes_per_element: int = 4) -> int:
    """The largest batch whose peak fits ``memory_bytes`` (0 if not even one sample)."""
    return int(largest(lambda b: plan_memory(network, int(b), schedule, bytes_per_element).peak_bytes <= memory_bytes,
                       1, 2, integer=True))


def largest_width(network: Network, batch: int, memory_bytes: float, schedule: str,
                  bytes_per_element: int = 4) -> float:
    """The largest width factor (see :func:`widen`) whose peak at ``batch`` fits ``memory_bytes``."""
    return largest(lambda w: plan_memory(widen(network, w), batch, schedule, bytes_per_element).peak_bytes
                   <= memory_bytes, 0.25, 0.5, integer=False)


def smallest_layer_bytes(network: Network, bytes_per_element: int = 4) -> int:
    """The least any layer needs at batch 1: its weights, its input and its output."""
    return min((layer.weight_elements + layer.input_elements + layer.output_elements) * bytes_per_element
               for layer in _layer_list(network))
