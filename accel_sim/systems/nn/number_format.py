"""Number formats a training loop sends its tensors through.

A format has ``quantize(name, x, from_gemm=False)`` (the tensor as the hardware holds it),
``narrow(name, x)`` (the same at the current setting, without statistics: inference) and
``end_step()`` (between iterations). :class:`Float32` is the reference;
:class:`accel_sim.systems.nn.dynamic_fixed_point.DynamicFixedPointUnit` is the simulated DLU's.
"""
from __future__ import annotations

from typing import Protocol

import numpy as np


class NumberFormat(Protocol):
    def quantize(self, name: str, x: np.ndarray, from_gemm: bool = False) -> np.ndarray: ...

    def narrow(self, name: str, x: np.ndarray) -> np.ndarray: ...

    def end_step(self) -> None: ...


class Float32:
    """IEEE single precision: every tensor is a float32 array, nothing else happens."""

    def quantize(self, name: str, x: np.ndarray, from_gemm: bool = False) -> np.ndarray:
        return np.asarray(x, dtype=np.float32)

    def narrow(self, name: str, x: np.ndarray) -> np.ndarray:
        return np.asarray(x, dtype=np.float32)

    def end_step(self) -> None:
        return None
