"""The sparse problem of a layer: C (M x N) = A (M x K, the weights transposed, stored sparse) x B
(K x N, the dense operand: im2col activations, row-major). M = the layer's ``n`` (output features /
filters), K its reduction, N its ``m`` (batch x output pixels); a batch-1 FC layer is an SpMV.
A grouped convolution is one block-diagonal A."""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from accel_sim.foundations.compress.formats import CSR
from accel_sim.foundations.workload.layer import ConvLayer, Layer
from accel_sim.foundations.workload.operands import layer_operands, weight_matrix

INDEX_BYTES = 4      # int32 column indices and row pointers (cuSPARSE / Sputnik)
CSR_CACHE = 64       # layers whose CSR a process keeps: a sparse-kernel study runs each layer again under other
                     # conditions (warm L2, balance and deck rows) after dozens of others (about 70 MB there)


@dataclass(frozen=True, eq=False)
class SparseProblem:
    m: int
    k: int
    n: int
    value_bytes: int            # CUDA-core kernels: the arch word
    layer: Layer

    @cached_property
    def dense(self) -> np.ndarray:
        """A (M x K), read from the layer's weights on first use (dense kernels never ask); of one group, a read-only
        view of the weights transposed (its users read it, none needs it contiguous: no copy)."""
        gemm = self.layer.gemm()
        w = weight_matrix(self.layer, layer_operands(self.layer).weights)   # (k, n * groups)
        if gemm.groups == 1:
            return w.T
        a = np.zeros((self.m, self.k), dtype=w.dtype)
        for g in range(gemm.groups):
            a[g * gemm.n:(g + 1) * gemm.n, g * gemm.k:(g + 1) * gemm.k] = w[:, g * gemm.n:(g + 1) * gemm.n].T
        return a

    @cached_property
    def csr(self) -> CSR:
        """A in CSR (shared by the problems of one layer: a study runs every kernel on it)."""
        if self.layer.gemm().groups != 1:
            return CSR.from_dense(self.dense)
        return _layer_csr(self.layer, self.m, self.k)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.csr.indptr)

    @property
    def nnz(self) -> int:
        return int(self.csr.nnz)


def sparse_problem(layer: Layer, word_bits: int) -> SparseProblem:
    gemm = layer.gemm()
    return SparseProblem(m=gemm.n * gemm.groups, k=gemm.k * gemm.groups, n=gemm.m,
                         value_bytes=max(1, word_bits // 8), layer=layer)


@lru_cache(maxsize=CSR_CACHE)
def _layer_csr(layer: Layer, m: int, k: int) -> CSR:
    """A (``m x k``) in CSR, built from the layer's weights' non-zeros (their flat positions in the stored layout: a
    conv's ``(K, C, R, S)`` is A row-major, a GEMM's ``(k, n)`` A transposed), never the dense matrix when the
    operands give the non-zeros without it."""
    index, values = layer_operands(layer).weight_nonzeros
    if isinstance(layer, ConvLayer):
        outputs, reduction = np.divmod(index, k)
    else:
        reduction, outputs = np.divmod(index, m)
    order = np.argsort(outputs, kind="stable")                 # by A row; columns stay sorted
    indptr = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(np.bincount(outputs, minlength=m), out=indptr[1:])
    csr = CSR(shape=(m, k), major_axis=0, indptr=indptr, indices=reduction[order].astype(np.int64),
              data=values[order], index_bits=max(1, int(k - 1).bit_length()),
              pointer_bits=max(1, int(reduction.size).bit_length()))
    for array in (csr.indptr, csr.indices, csr.data):   # shared between plans: nobody may edit it
        array.flags.writeable = False
    return csr
