"""The ``dlu:`` section of an arch config (family: dlu)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DLUSpec:
    """Statistics-driven dynamic fixed-point processor (Fujitsu DLU style)."""
