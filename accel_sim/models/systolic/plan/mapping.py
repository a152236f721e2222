"""How a layer's GEMM is folded onto a ``rows x cols`` systolic array (pure functions).

The three dataflows are one parameterised mapping (SCALE-Sim's ``systolic_compute_{os,ws,is}``
differ only in which GEMM dimension goes where), described by :class:`Dataflow`:

=========  ==============  ==============  ============  =======================
dataflow   array rows (Sr)  array cols (Sc)  temporal (T)  stationary operand
=========  ==============  ==============  ============  =======================
``os``     m (outputs)      n (filters)      k (window)    output (no preload)
``ws``     k (window)       n (filters)      m (outputs)   filter (preloaded)
``is``     k (window)       m (outputs)      n (filters)   ifmap (preloaded)
=========  ==============  ==============  ============  =======================

The array works fold by fold (SCALE-Sim: column folds outer, row folds inner). One fold
takes ``fold_lines`` demand cycles ("lines" in SCALE-Sim's demand matrices)::

    os: T + R + C - 2            (operands skew in, outputs skew out)
    ws / is: 2R + C + T - 2      (+ R cycles to preload the stationary operand)

with ``R, C`` the *full* array dimensions even for a partly used fold (SCALE-Sim pads
partial folds with idle requests). SCALE-Sim's "Total Cycles" is the index of the last
demand cycle, ``folds * fold_lines - 1`` when memory never stalls.

N:M sparsity (SCALE-Sim v3 layer-wise ``SparsitySupport``, weight stationary only): the
filter column of every output channel keeps the first N of every M weights along the
reduction dimension; the array sees the condensed reduction length
``k' = (k // M) * N + min(N, k % M)`` (see :func:`effective_reduction`) and the ifmap
columns of the pruned weights are dropped (``operand_matrix.create_{filter,ifmap}_matrix``).

Packed narrow elements (``systolic.elements_per_pe`` = p > 1, block-scaled layers only): every PE word
holds p consecutive elements of K and a PE does their p products per cycle, so the array sees
``k' = k / p`` packed words. Operand addresses are those of each word's first element (reduction
indices ``j % p == 0``, the index pattern of a 1:p selection: :attr:`SystolicMapping.kept_pattern`);
MACs, folds and cycles are counted in packed words (the accounting multiplies the MACs and the
operand traffic by p).

Row-wise sparsity (SCALE-Sim v3 ``OptimizedMapping: true``, :mod:`.row_sparsity`): the array sees
the packed filter operand, ``k' = ceil(k / 2BS) BS`` rows (idle slots included), while the ifmap
keeps all ``k`` columns; folds, fold cycles and utilisation follow from ``k'`` as above. Mapping
efficiency counts only the slots holding a weight, and the PEs do ``T`` MACs per kept weight.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from accel_sim.models.systolic.plan.row_sparsity import RowSparsity, draw_row_sparsity
from accel_sim.models.systolic.spec import SystolicSpec
from accel_sim.foundations.workload.layer import GemmShape, Layer, NMSparsity


@dataclass(frozen=True)
class Dataflow:
    """Where the GEMM dimensions go for one dataflow.

    ``rows_dim`` / ``cols_dim`` / ``temporal_dim`` name GEMM dimensions (``"m"``, ``"k"``,
    ``"n"``); ``stationary`` names the operand that stays in the PEs; ``preload`` is True
    when that operand is an input loaded into the array before streaming (WS, IS), which
    costs R demand cycles per fold.
    """

    name: str
    rows_dim: str
    cols_dim: str
    temporal_dim: str
    stationary: str
    preload: bool


DATAFLOWS: dict[str, Dataflow] = {
    "os": Dataflow("os", rows_dim="m", cols_dim="n", temporal_dim="k", stationary="ofmap", preload=False),
    "ws": Dataflow("ws", rows_dim="k", cols_dim="n", temporal_dim="m", stationary="filter", preload=True),
    "is": Dataflow("is", rows_dim="k", cols_dim="m", temporal_dim="n", stationary="ifmap", preload=True),
}


def effective_reduction(k: int, nm: NMSparsity | None) -> int:
    """Reduction length the array sees under N:M filter sparsity (``k`` when dense).

    SCALE-Sim tiles the pattern ``[1]*N + [0]*(M-N)`` down each filter column, keeps the
    non-zeros and strips the trailing all-zero rows, so a last partial block of length
    ``k % M`` keeps ``min(N, k % M)`` weights.
    """
    if nm is None:
        return k
    return (k // nm.m) * nm.n + min(nm.n, k % nm.m)


def kept_reduction_indices(k: int, nm: NMSparsity | None) -> list[int] | range:
    """Indices along the reduction dimension that survive N:M pruning, in order."""
    if nm is None:
        return range(k)
    return [j for j in range(k) if j % nm.m < nm.n]


def array_nm(spec: SystolicSpec, layer: Layer) -> NMSparsity | None:
    """The N:M pattern the array exploits: the layer's, when the array supports layer-wise N:M (else dense)."""
    return layer.weight_sparsity if spec.nm_sparsity and not spec.row_wise else None


@dataclass(frozen=True)
class SystolicMapping:
    """One group of a layer mapped onto the array."""

    dataflow: Dataflow
    rows: int
    cols: int
    gemm: GemmShape          # one group's GEMM as the array sees it (k shrunk by N:M)
    dense_k: int             # reduction length before N:M pruning
    nm: NMSparsity | None    # pattern the array exploits (None: dense)
    row_wise: RowSparsity | None = None  # row-wise pattern (None: off); gemm.k is then the packed k'
    packing: int = 1         # narrow elements per PE word along k (gemm.k is then k / packing)

    @property
    def kept_pattern(self) -> NMSparsity | None:
        """Which reduction indices carry an operand address: N:M's kept ones, each packed word's first
        element (1:packing), or all (None)."""
        return NMSparsity(1, self.packing) if self.packing > 1 else self.nm

    @property
    def groups(self) -> int:
        return self.gemm.groups

    def dim(self, name: str) -> int:
        return {"m": self.gemm.m, "k": self.gemm.k, "n": self.gemm.n}[name]

    @property
    def sr(self) -> int:
        """Spatial extent mapped onto the array rows (SCALE-Sim ``Sr``)."""
        return self.dim(self.dataflow.rows_dim)

    @property
    def sc(self) -> int:
        """Spatial extent mapped onto the array columns (SCALE-Sim ``Sc``)."""
        return self.dim(self.dataflow.cols_dim)

    @property
    def t(self) -> int:
        """Temporal extent streamed through the array per fold (SCALE-Sim ``T``)."""
        return self.dim(self.dataflow.temporal_dim)

    @property
    def row_folds(self) -> int:
        return math.ceil(self.sr / self.rows)

    @property
    def col_folds(self) -> int:
        return math.ceil(self.sc / self.cols)

    @property
    def folds(self) -> int:
        return self.row_folds * self.col_folds

    @property
    def preload_lines(self) -> int:
        """Demand cycles spent loading the stationary input operand (R for WS/IS, 0 for OS)."""
        return self.rows if self.dataflow.preload else 0

    @property
    def fold_lines(self) -> int:
        """Demand cycles per fold: fill skew (R-1) + stream (T) + drain skew (C-1) [+ preload R]."""
        return self.preload_lines + self.rows + self.cols + self.t - 2

    @property
    def demand_lines(self) -> int:
        """Demand cycles of one group (rows of SCALE-Sim's demand matrices)."""
        return self.folds * self.fold_lines

    def used_rows(self, fold_row: int) -> int:
        return min(self.rows, self.sr - fold_row * self.rows)

    def used_cols(self, fold_col: int) -> int:
        return min(self.cols, self.sc - fold_col * self.cols)

    @property
    def kept_weights_per_group(self) -> int:
        """Weights one group's filter operand holds (every one unless sparse)."""
        if self.row_wise is not None:
            return self.row_wise.kept_weights(self.dense_k)
        return self.gemm.k * self.gemm.n

    @property
    def mapping_efficiency(self) -> float:
        """SCALE-Sim's mapping efficiency: mean over folds of used PEs / all PEs (row-wise: PEs
        holding a weight, so the sum over folds is the kept weights)."""
        used = self.kept_weights_per_group if self.row_wise is not None else self.sr * self.sc
        return used / (self.rows * self.cols * self.folds)

    @property
    def utilization_cycles_per_fold(self) -> int:
        """Cycles per fold SCALE-Sim divides by for its compute utilisation.

        SCALE-Sim takes ``rows + cols - 1`` of the fold's unskewed demand matrix: for OS that is
        ``fold_lines``; for WS / IS the matrix already contains the C-1 drain rows, so the
        drain skew is counted twice (``fold_lines + C - 1``), a SCALE-Sim quirk kept here.
        """
        return self.fold_lines + (self.cols - 1 if self.dataflow.preload else 0)

    @property
    def compute_utilization(self) -> float:
        """SCALE-Sim's "Compute Util": mean over folds of used PEs x T / (PEs x fold cycles)."""
        return (self.sr * self.sc * self.t) / (
            self.rows * self.cols * self.utilization_cycles_per_fold * self.folds)

    @property
    def group_compute_cycles(self) -> int:
        """SCALE-Sim's "Total Cycles" of one group without memory stalls: the last cycle index."""
        return self.demand_lines - 1

    @property
    def macs_issued_per_group(self) -> int:
        """MACs the PEs perform for one group (the condensed k under N:M, the kept weights row-wise)."""
        return self.gemm.m * self.kept_weights_per_group


def packing(spec: SystolicSpec) -> int:
    """Narrow elements per PE word: ``elements_per_pe`` for block-scaled operands, else 1."""
    return spec.elements_per_pe if spec.block_format != "none" else 1


def map_layer(spec: SystolicSpec, layer: Layer) -> SystolicMapping:
    """Map ``layer`` onto the array described by ``spec`` (N:M only if the array supports it)."""
    dense = layer.gemm()
    nm = array_nm(spec, layer)
    row_wise = draw_row_sparsity(spec.row_block_size, spec.row_seed, dense.n) if spec.row_wise else None
    k = row_wise.compressed_rows(dense.k) if row_wise is not None else effective_reduction(dense.k, nm)
    pack = packing(spec)
    if pack > 1:
        k = effective_reduction(dense.k, NMSparsity(1, pack))
    gemm = GemmShape(m=dense.m, k=k, n=dense.n, groups=dense.groups)
    return SystolicMapping(dataflow=DATAFLOWS[spec.dataflow], rows=spec.rows, cols=spec.cols,
                           gemm=gemm, dense_k=dense.k, nm=nm, row_wise=row_wise, packing=pack)
