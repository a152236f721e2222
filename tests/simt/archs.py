"""SIMT archs for tests: the shipped ampere_a100_simt with fields of its simt / tensor_core sections replaced;
GEMM layers whose weights come from an .npz payload."""
from __future__ import annotations

import dataclasses

import numpy as np

from accel_sim import load_arch
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.foundations.workload import GemmLayer
from accel_sim.foundations.workload.layer import OperandSource

SIMT = load_arch("ampere_a100_simt")


def simt(tensor_core: dict | None = None, **fields) -> ArchSpec:
    return dataclasses.replace(SIMT, simt=dataclasses.replace(SIMT.simt, **fields),
                               tensor_core=dataclasses.replace(SIMT.tensor_core, **(tensor_core or {})))


def payload_layer(tmp_path, name: str, m: int, weights: np.ndarray) -> GemmLayer:
    """A GEMM (m x k x n) whose weights (k x n, i.e. A^T) are read from an .npz payload in ``tmp_path``."""
    path = tmp_path / "w.npz"
    np.savez(path, weights=weights)
    k, n = weights.shape
    return GemmLayer(name, m=m, k=k, n=n, operands=OperandSource(payload=str(path)))


def two_blocks_layer(tmp_path, columns: int) -> GemmLayer:
    """A (16 x 16) of two dense 8 x 8 blocks, (0, 0) of ones and (1, 1) of twos, times B with ``columns``
    columns: the BSR examples' operand."""
    weights = np.zeros((16, 16), dtype=np.float32)                  # A = weights^T
    weights[:8, :8] = 1.0
    weights[8:, 8:] = 2.0
    return payload_layer(tmp_path, "g", columns, weights)
