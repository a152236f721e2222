"""The ``cnvlutin:`` section of an arch config (family: cnvlutin)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CnvlutinSpec:
    """Cnvlutin activation skipping and its DaDianNao-like dense baseline."""
