"""The ``eie:`` section of an arch config (family: eie)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EIESpec:
    """EIE: sparse matrix x sparse vector engine (Han et al., ISCA 2016)."""
