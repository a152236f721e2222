"""The operands as EIE holds them (pure numpy, no timing).

- :func:`quantize_activations`: activations as ``arithmetic_bits`` dynamic fixed point
  (``accel_sim.foundations.compress.quantization``); the broadcast set of a vector is its non-zero codes.
- :func:`quantize_weights`: k-means weight sharing into a ``2**weight_code_bits``-entry
  codebook (code 0 = pruned weight), the codebook in ``arithmetic_bits`` fixed point
  (brief: 4-bit index into a 16-entry codebook, decoded to 16-bit fixed point).
- :func:`stored_weights`: the weight codes in EIE's interleaved relative-index CSC, encoded by
  the compress package (:class:`~accel_sim.foundations.compress.formats.eie.EIEInterleavedCSC`): what each
  PE's pointer banks and sparse-matrix SRAM hold. The reference runs these entries; the fast
  path never needs them (it counts from :mod:`.slices`), so they are encoded on demand.

Orientation: EIE's W is ``outputs x inputs``; a GEMM layer's weights are ``(k, n)`` =
``inputs x outputs``, so column j of W is row j of the layer's weight array.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.foundations.compress.formats.eie import EIEInterleavedCSC
from accel_sim.foundations.compress.quantization import quantize_dynamic_fixed_point, quantize_kmeans
from accel_sim.models.eie.spec import EIESpec


def quantize_activations(spec: EIESpec, inputs: np.ndarray) -> np.ndarray:
    """Integer fixed-point activation codes (int64) of shape ``(m, k)``."""
    if not np.any(inputs):
        return np.zeros(inputs.shape, dtype=np.int64)
    return np.asarray(quantize_dynamic_fixed_point(inputs, bits=spec.arithmetic_bits).values, dtype=np.int64)


def quantize_weights(spec: EIESpec, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes (k, n) int64, codebook (codebook_size,) int64)``; code 0 is the pruned weight (value 0)."""
    if not np.any(weights):
        return np.zeros(weights.shape, dtype=np.int64), np.zeros(spec.codebook_size, dtype=np.int64)
    shared = quantize_kmeans(weights, n_clusters=spec.codebook_size, reserve_zero=True)
    codebook = np.asarray(shared.codebook, dtype=np.float64)
    fixed = quantize_dynamic_fixed_point(codebook, bits=spec.arithmetic_bits).values
    return np.asarray(shared.values, dtype=np.int64), np.asarray(fixed, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class PEStorage:
    """One PE's stored slice of W: column pointers (pointer SRAM) and entries (sparse-matrix SRAM)."""

    col_ptr: np.ndarray     # (k + 1,) p_j: column j holds entries p_j .. p_j+1 - 1
    codes: np.ndarray       # v of every entry: codebook index, 0 for a padding entry
    rel_index: np.ndarray   # z of every entry: zeros before it in the PE's column slice


@dataclass(frozen=True, eq=False)
class StoredWeights:
    pes: tuple[PEStorage, ...]
    codebook: np.ndarray    # (codebook_size,) fixed-point weight of each code


def stored_weights(spec: EIESpec, weights: np.ndarray) -> StoredWeights:
    """The ``(k, n)`` weights as EIE's PEs store them (rows of W interleaved over ``n_pes``)."""
    codes, codebook = quantize_weights(spec, weights)
    encoded = EIEInterleavedCSC.from_dense(codes.T, n_pes=spec.n_pes, index_bits=spec.index_bits, pointer_bits=None)
    pes = tuple(PEStorage(np.asarray(pe.col_ptr, dtype=np.int64), np.asarray(pe.values, dtype=np.int64),
                          np.asarray(pe.rel_index, dtype=np.int64)) for pe in encoded.pes)
    return StoredWeights(pes, codebook)
