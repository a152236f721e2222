"""Tensor-core archs for tests: the shipped A100 with some fields replaced (no YAML per case)."""
from __future__ import annotations

import dataclasses

from accel_sim import load_arch
from accel_sim.pipeline.catalog import ArchSpec

A100 = load_arch("ampere_a100")


def a100(word_bits: int = 16, **tensor_core) -> ArchSpec:
    """``ampere_a100`` at ``word_bits`` with ``tensor_core`` fields replaced; ``kernels`` given without
    ``sparse_kernels`` are the kernels of both runs (the shipped sparse list is dropped)."""
    if "kernels" in tensor_core:
        tensor_core.setdefault("sparse_kernels", ())
    return dataclasses.replace(A100, word_bits=word_bits,
                               tensor_core=dataclasses.replace(A100.tensor_core, **tensor_core))
