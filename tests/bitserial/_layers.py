"""Small layers and configs for the bitserial tests (payloads written to a temporary folder)."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from accel_sim import load_arch
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, OperandSource

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data" / "dnnsim_bitserial"
_FOLDER = Path(tempfile.mkdtemp(prefix="bitserial_tests_"))


def payload(name: str, weights: np.ndarray, inputs: np.ndarray) -> str:
    path = _FOLDER / f"{name}.npz"
    np.savez(path, weights=weights.astype(np.float32), inputs=inputs.astype(np.float32))
    return str(path)


def conv(name: str, weights: np.ndarray, inputs: np.ndarray, pad: int = 0, stride: int = 1,
         groups: int = 1, **extra) -> ConvLayer:
    k, _, r, s = weights.shape
    n, c, h, w = inputs.shape
    return ConvLayer(name, in_h=h, in_w=w, in_channels=c, out_channels=k, kernel_h=r, kernel_w=s,
                     stride_h=stride, stride_w=stride, pad_top=pad, pad_bottom=pad, pad_left=pad, pad_right=pad,
                     groups=groups, batch=n, operands=OperandSource(payload=payload(name, weights, inputs)), **extra)


def gemm(name: str, weights: np.ndarray, inputs: np.ndarray, **extra) -> GemmLayer:
    k, n = weights.shape
    return GemmLayer(name, m=inputs.shape[0], k=k, n=n, operands=OperandSource(payload=payload(name, weights, inputs)),
                     **extra)


def arch(name: str = "bitserial_dnnsim_dadiannao", **fields):
    return load_arch(name, {f"bitserial.{key}": value for key, value in fields.items()})
