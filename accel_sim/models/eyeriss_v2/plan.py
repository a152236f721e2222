"""Plan of an Eyeriss v2 layer (pure numpy): the CSC view of the operands and the PE work units.

Row stationary as in Eyeriss v2 (JETCAS 2019, Sec. II and IV-A): a PE holds a C0 x M0 matrix of filter
rows (S weights each) of one filter row r, and slides a window of C0 x S iacts along one ifmap row; for
every non-zero iact of a window it reads the non-zero weights of that iact's column, ``simd_width`` a
cycle. A **work unit** is one PE's job: (group g, block of M0 filters, block of C0 channels, filter row
r, image n, ofmap row e, block of ofmap columns). Work units are laid out in that loop order and dealt to
the PEs ``pes`` at a time (a **round**); the hierarchical mesh lets any dimension, including the groups
of a depth-wise layer, spread over the PEs (Sec. II, RS+).

This plan's rules, fixed before any comparison (the paper's mapper is not published):

- C0: the most channels whose window fits the iact SPad and whose columns fit the weight address SPad
  (``C0 x S <= 16``);
- M0: the largest power of two (at most the psum SPad, at most M) whose CSC weights fit the weight data
  SPad in every block: the sparse pattern is known at compile time (Sec. IV-A, Table III);
- ofmap columns split into blocks only when the other dimensions give fewer work units than PEs.

What it holds: ``x_nz`` (G, N, C, H, W) the non-zero iacts (padding zeros included) and ``w_cnt``
(G, M-blocks, C, R, S) the non-zero weights of every weight column of every M0 block: the CSC coding
of the operands both counting paths read.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import ConvLayer, Layer
from accel_sim.foundations.workload.loop_nest import LoopNest, loop_nest
from accel_sim.foundations.workload.operands import layer_operands
from accel_sim.models.eyeriss_v2.spec import EyerissV2Spec


@dataclass(frozen=True)
class EyerissV2Plan:
    arch: ArchBase
    spec: EyerissV2Spec
    layer: Layer
    shape: LoopNest
    c0: int                          # channels of a work unit
    m0: int                          # filters of a work unit
    c_sizes: tuple[int, ...]         # channels of each channel block
    m_sizes: tuple[int, ...]         # filters of each filter block
    f_starts: tuple[int, ...]        # first ofmap column of each column block
    f_sizes: tuple[int, ...]         # ofmap columns of each column block
    x_nz: np.ndarray                 # (G, N, C, H, W) bool: non-zero iacts
    w_cnt: np.ndarray                # (G, M-blocks, C, R, S) int: non-zero weights of each column of each block
    operand_hashes: Mapping[str, str]

    @property
    def units_per_weights(self) -> int:
        """Consecutive work units sharing one weight matrix (images x ofmap rows x column blocks)."""
        return self.shape.images * self.shape.out_rows * len(self.f_sizes)

    @property
    def work_units(self) -> int:
        s = self.shape
        return s.groups * len(self.m_sizes) * len(self.c_sizes) * s.filter_rows * self.units_per_weights


def blocks(total: int, size: int) -> tuple[int, ...]:
    return tuple(min(size, total - start) for start in range(0, total, size))


def _operands(layer: Layer, shape: LoopNest) -> tuple[np.ndarray, np.ndarray, Mapping[str, str]]:
    ops = layer_operands(layer)
    if isinstance(layer, ConvLayer):
        x = np.pad(ops.inputs, ((0, 0), (0, 0), (layer.pad_top, layer.pad_bottom), (layer.pad_left, layer.pad_right)))
    else:
        x = ops.inputs.reshape(shape.images, shape.channels * shape.groups, 1, 1)
    x = x.reshape(shape.images, shape.groups, shape.channels, shape.height, shape.width).swapaxes(0, 1)
    w = ops.weights.reshape(shape.groups, shape.filters, shape.channels, shape.filter_rows, shape.filter_cols)
    return x != 0, w != 0, ops.hashes


def column_counts(w_nz: np.ndarray, m0: int) -> np.ndarray:
    """(G, M-blocks, C, R, S) non-zero weights of every column of every block of ``m0`` filters."""
    g, m, c, r, s = w_nz.shape
    padded = np.zeros((g, -(-m // m0) * m0, c, r, s), dtype=bool)   # summed in int64: no int64 copy of the mask
    padded[:, :m] = w_nz
    return padded.reshape(g, -1, m0, c, r, s).sum(axis=2, dtype=np.int64)


def block_words(cnt: np.ndarray, c0: int, simd: int) -> np.ndarray:
    """(G, M-blocks, C-blocks, R) weight data SPad words of every weight matrix (odd columns padded)."""
    g, mb, c, r, s = cnt.shape
    half = -(-cnt // simd)
    padded = np.zeros((g, mb, -(-c // c0) * c0, r, s), dtype=np.int64)
    padded[:, :, :c] = half
    return padded.reshape(g, mb, -1, c0, r, s).sum(axis=(3, 5))


def _filters_per_unit(spec: EyerissV2Spec, shape: LoopNest, w_nz: np.ndarray, c0: int) -> int:
    m0 = 1 << (min(spec.psum_spad_entries, shape.filters).bit_length() - 1)
    while m0 > 1 and block_words(column_counts(w_nz, m0), c0, spec.simd_width).max() > spec.weight_data_entries:
        m0 //= 2
    return m0


def plan(arch: ArchBase, layer: Layer) -> EyerissV2Plan:
    spec: EyerissV2Spec = arch.section("eyeriss_v2")
    shape = loop_nest(layer)
    s = shape.filter_cols
    if s > min(spec.iact_spad_entries, spec.weight_addr_entries):
        raise InputError.single(layer.name, "kernel_w", f"a filter row of S={s} weights does not fit the "
                                f"{spec.iact_spad_entries}-entry iact SPad or {spec.weight_addr_entries}-entry weight "
                                "address SPad (eyeriss_v2.iact_spad_entries, eyeriss_v2.weight_addr_entries)")
    c0 = min(shape.channels, spec.iact_spad_entries // s, spec.weight_addr_entries // s)
    x_nz, w_nz, hashes = _operands(layer, shape)
    m0 = _filters_per_unit(spec, shape, w_nz, c0)
    m_sizes, c_sizes = blocks(shape.filters, m0), blocks(shape.channels, c0)
    units = shape.groups * len(m_sizes) * len(c_sizes) * shape.filter_rows * shape.images * shape.out_rows
    splits = min(shape.out_cols, math.ceil(spec.pes / units))
    f_sizes = blocks(shape.out_cols, math.ceil(shape.out_cols / splits))
    f_starts = tuple(int(v) for v in np.cumsum((0,) + f_sizes[:-1]))
    return EyerissV2Plan(arch, spec, layer, shape, c0, m0, c_sizes, m_sizes, f_starts, f_sizes, x_nz,
                         column_counts(w_nz, m0), MappingProxyType(dict(hashes)))
