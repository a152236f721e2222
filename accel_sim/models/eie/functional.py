"""Numpy functional model of an EIE layer's outputs, for tests: the quantized layer
``activation codes @ codebook[weight codes]`` as an ``(m, n)`` int64 array (exact sums)."""
from __future__ import annotations

import numpy as np

from accel_sim.models.eie.plan import EIEPlan
from accel_sim.models.eie.plan.operands import quantize_weights


def outputs(plan: EIEPlan) -> np.ndarray:
    codes, codebook = quantize_weights(plan.spec, plan.operands.weights)
    return plan.activations @ codebook[codes]
