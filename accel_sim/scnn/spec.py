"""The ``scnn:`` section of an arch config (family: scnn)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SCNNSpec:
    """SCNN and its dense baselines DCNN / DCNN-opt (Parashar et al., ISCA 2017)."""
