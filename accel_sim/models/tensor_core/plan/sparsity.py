"""Sparsity metadata: does a layer run on the sparse tensor-core path? Checked on the declaration and the data.

Policy (stated, never silent):

- A layer without ``weight_sparsity`` runs dense (unstructured zeros are multiplied: the
  tensor core cannot skip them). So does every layer on an arch with ``sparse_support: false``.
- A layer whose declared N:M pattern guarantees the hardware pattern (2:4 for 8/16-bit
  words, 1:2 for 32-bit; e.g. 2:4, 1:4 or 1:2 on a 2:4 core) runs sparse. A declared
  pattern that does not guarantee it (3:4, 4:8, ...) is an :class:`InputError`: prune to the
  hardware pattern or drop ``weight_sparsity``.
- The weights the layer really has (``accel_sim.foundations.workload.operands``) are encoded with
  :class:`accel_sim.foundations.compress.formats.n_of_m.NOfM` along K; weights loaded from a payload
  that are not 2:4 are an :class:`InputError` naming the payload. There is no automatic
  pruning of user data (generated weights are pruned to the declared pattern by the
  workload's operand generator, so they always pass).
"""
from __future__ import annotations

import numpy as np

from accel_sim.foundations.compress.formats.n_of_m import NOfM
from accel_sim.foundations.errors import InputError
from accel_sim.models.tensor_core.spec import TensorCoreSpec
from accel_sim.foundations.workload.layer import Layer


def hardware_pattern(spec: TensorCoreSpec, word_bits: int) -> tuple[int, int]:
    """The sparse pattern of the tensor core at this word width: 1:2 for 32-bit (TF32), else 2:4."""
    return (spec.nm_n_32bit, spec.nm_m_32bit) if word_bits == 32 else (spec.nm_n, spec.nm_m)


def guarantees(declared_n: int, declared_m: int, hw_n: int, hw_m: int) -> bool:
    """Whether every tensor with at most ``declared_n`` non-zeros per aligned ``declared_m`` group
    has at most ``hw_n`` per aligned ``hw_m`` group."""
    if hw_m % declared_m == 0:
        return declared_n * (hw_m // declared_m) <= hw_n
    if declared_m % hw_m == 0:
        return min(declared_n, hw_m) <= hw_n
    return False


def runs_sparse(spec: TensorCoreSpec, word_bits: int, layer: Layer) -> bool:
    """The layer's mode from its declaration; raises InputError for a pattern the core cannot run."""
    if not spec.sparse_support or layer.weight_sparsity is None:
        return False
    hw_n, hw_m = hardware_pattern(spec, word_bits)
    declared = layer.weight_sparsity
    if not guarantees(declared.n, declared.m, hw_n, hw_m):
        raise InputError.single(layer.name, "weight_sparsity",
                                f"{declared} weights are not guaranteed {hw_n}:{hw_m} along K, the only sparse "
                                f"pattern this tensor core runs at {word_bits}-bit words; prune to {hw_n}:{hw_m} "
                                "or drop weight_sparsity to run the layer dense")
    return True


def check_weights(spec: TensorCoreSpec, word_bits: int, layer: Layer, weight_matrix: np.ndarray) -> NOfM:
    """Encode the GEMM-view weights (reduction x outputs) as the hardware N:M along K, or raise."""
    hw_n, hw_m = hardware_pattern(spec, word_bits)
    try:
        return NOfM.from_dense(weight_matrix, n=hw_n, m=hw_m, axis=0)
    except ValueError as err:
        where = layer.operands.payload or layer.name
        raise InputError.single(where, "weights", f"layer {layer.name} is marked {layer.weight_sparsity} but its "
                                f"weights are not {hw_n}:{hw_m} along K ({err}); no automatic pruning of "
                                "given weights") from None
