"""SIMT archs for tests: the shipped ampere_a100_simt with fields of its simt / tensor_core sections replaced."""
from __future__ import annotations

import dataclasses

from accel_sim import load_arch
from accel_sim.arch.spec import ArchSpec

SIMT = load_arch("ampere_a100_simt")


def simt(tensor_core: dict | None = None, **fields) -> ArchSpec:
    return dataclasses.replace(SIMT, simt=dataclasses.replace(SIMT.simt, **fields),
                               tensor_core=dataclasses.replace(SIMT.tensor_core, **(tensor_core or {})))
