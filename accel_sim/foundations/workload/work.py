"""How much a layer costs to simulate, estimated from shapes before anything is allocated.

:func:`check_work` runs first in :func:`accel_sim.pipeline.simulate.simulate_layer`, the one costing
path of the CLI, sweeps and studies, so a 10^12-channel layer or a 10^12-row array is
refused in microseconds with the layer and the estimate named, instead of running for
minutes or dying in numpy ("Unable to allocate 14.6 TiB").

The estimate is the number of values (operand elements, addresses) the family's plan and
fast path hold for the layer. By default it is the layer's three tensors: inputs, weights
and outputs (the operands :mod:`accel_sim.foundations.workload.operands` generates, and the result). A
family whose plan holds more (the systolic fetch sequences: the im2col view, each GEMM
dimension padded to the array's side) gives its own count as ``Family.work_elements``.
"""
from __future__ import annotations

import math
from collections.abc import Callable

from accel_sim.foundations.compress._checks import MAX_TENSOR_ELEMENTS
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import Layer
from accel_sim.foundations.workload.operands import input_shape, weight_shape

# The same limit as every shape-driven allocation (2^31 values): beyond every layer of the
# shipped networks on every shipped arch (the largest, a MobileNet-v2 depthwise layer on a
# 256-wide array, needs about 2.5 x 10^8) and, at 8 bytes a value, 16 GiB.
MAX_WORK_ELEMENTS = MAX_TENSOR_ELEMENTS
BYTES_PER_ELEMENT = 8  # int64 addresses, or a float32 value with its mask / index


def tensor_elements(layer: Layer) -> int:
    """Inputs, weights and outputs of the layer."""
    g = layer.gemm()
    return math.prod(input_shape(layer)) + math.prod(weight_shape(layer)) + g.groups * g.m * g.n


def check_work(layer: Layer, arch_name: str, estimate: Callable[[Layer], int] | None = None) -> int:
    """The layer's estimated elements; an :class:`InputError` naming the layer if beyond the limit."""
    elements = estimate(layer) if estimate is not None else tensor_elements(layer)
    if elements > MAX_WORK_ELEMENTS:
        raise InputError.single(f"layer {layer.name}", "size",
                                f"simulating it on {arch_name} needs about {elements:,} values "
                                f"({elements * BYTES_PER_ELEMENT / 2**30:,.0f} GiB), more than the limit of "
                                f"{MAX_WORK_ELEMENTS:,} (refused before allocating); make the layer or the "
                                "array smaller")
    return elements
