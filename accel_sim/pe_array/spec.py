"""The ``pe_array:`` section of an arch config (family: pe_array)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PEArraySpec:
    """Generic PE array with a selectable level of sparsity support."""
