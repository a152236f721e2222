"""EIE's plan of one fully connected layer (pure numpy): what both paths and accounting share.

- :mod:`.operands`: activation codes (the LNZD broadcasts their non-zeros), the shared-weight
  codes and codebook, and the weights in EIE's storage format (for the reference);
- :mod:`.slices`: the size of every (column, PE) slice of that format, vectorised;
- :mod:`.storage`: whether the slices fit each PE's SRAMs and pointer width, what spills to DRAM.

A GEMM layer of ``m`` rows is ``m`` input vectors run one after the other. Weights stay on chip
(brief): a layer whose PE slices do not fit is refused, or with ``eie.sram_overflow:
dram_spill`` its excess is loaded from DRAM first, or with ``grow_on_chip`` the pointers and SRAMs
are sized to hold it (the plan's ``pointer_bits`` / ``*_sram_size``: what the layer runs on).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.contract import BatchMemo
from accel_sim.models.eie.plan.operands import StoredWeights, quantize_activations, stored_weights
from accel_sim.models.eie.plan.slices import SliceStats, slice_stats_of_positions
from accel_sim.models.eie.plan.storage import storage_fit
from accel_sim.models.eie.spec import EIESpec
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import GemmLayer, Layer
from accel_sim.foundations.workload.operands import LayerOperands, layer_operands

# Fields of ``eie`` that change only the timing and the counts, not what is stored: a plan can
# be re-timed with them (a sweep reuses the encoding).
TIMING_FIELDS = frozenset({"fifo_depth", "spmat_sram_width", "empty_column_costs_cycle", "lnzd_fanin",
                           "lnzd_cycles_per_level"})


@dataclass(frozen=True, eq=False)
class EIEPlan:
    """What both paths and accounting share: the operands, their codes and the storage."""

    arch: ArchBase
    spec: EIESpec
    layer: GemmLayer
    operands: LayerOperands
    activations: np.ndarray      # (m, k) integer activation codes
    slices: SliceStats           # (k, n_pes) slice sizes of the stored format
    pointer_bits: int            # column-pointer width used (widened only under dram_spill / grow_on_chip)
    spill_bytes: int             # bytes loaded from DRAM before the layer (dram_spill)
    pointer_sram_size: int       # bytes of pointer SRAM per PE (the spec's, grown only under grow_on_chip)
    spmat_sram_size: int         # bytes of sparse-matrix SRAM per PE (likewise)

    @property
    def operand_hashes(self) -> Mapping[str, str]:
        return MappingProxyType(self.operands.hashes)

    def broadcast_columns(self, vector: int) -> np.ndarray:
        """Columns of the non-zero activations of input vector ``vector``, in index order."""
        return np.flatnonzero(self.activations[vector])

    def stored_weights(self) -> StoredWeights:
        """The weights in EIE's storage format (encoded now: k-means and the compress encoder)."""
        return stored_weights(self.spec, self.operands.weights)


def plan(arch: ArchBase, layer: Layer, memo: BatchMemo | None = None) -> EIEPlan:
    """Operands, codes and storage of one layer, with the SRAM / pointer fit checks. ``memo``: the
    activation codes and slice sizes shared with the run's other archs on this layer (archs that differ
    in :data:`TIMING_FIELDS` or other settings that do not change them encode the layer once)."""
    spec: EIESpec = arch.section("eie")
    if not isinstance(layer, GemmLayer):
        raise InputError.single(f"layer {layer.name}", "type", "EIE runs fully connected / LSTM matrix-vector "
                                "layers (type fc or gemm); convolutions are not supported by this model")
    memo = BatchMemo() if memo is None else memo
    ops = layer_operands(layer)
    slices = memo.get(layer, ("slices", spec.n_pes, spec.max_run), lambda: slice_stats_of_positions(
        ops.weight_nonzeros[0], (layer.k, layer.n), spec.n_pes, spec.max_run))
    activations = memo.get(layer, ("activation codes", spec.arithmetic_bits),
                           lambda: quantize_activations(spec, ops.inputs))
    fit = storage_fit(arch.name, layer.name, spec, layer.k, slices.entries_per_pe)
    return EIEPlan(arch, spec, layer, ops, activations, slices, fit.pointer_bits,
                   fit.spill_bytes, fit.pointer_sram_size, fit.spmat_sram_size)


def retime(plan: EIEPlan, field: str, value: object) -> EIEPlan:
    """The plan with one timing field of ``eie`` changed (:data:`TIMING_FIELDS`): a sweep over it
    plans each layer once."""
    if field not in TIMING_FIELDS:
        raise ValueError(f"retime changes only {sorted(TIMING_FIELDS)}, not {field!r}")
    spec = dataclasses.replace(plan.spec, **{field: value})
    return dataclasses.replace(plan, arch=dataclasses.replace(plan.arch, eie=spec), spec=spec)
