"""The ``tensor_core:`` section of an arch config (family: tensor_core)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TensorCoreSpec:
    """Ampere-style sparse tensor core (2:4 structured sparsity)."""
