"""The paper's comparison designs (Table 6) as flags on one PE array: no copied models.

| design        | gate MAC | skip MAC | skip buffer | skip DRAM | inner dataflow    |
|---------------|----------|----------|-------------|-----------|-------------------|
| dcnn          | -        | -        | -           | -         | dot product       |
| dcnn_opt      | A+W      | -        | -           | A+W       | dot product       |
| scnn_sparse_a | A        | A        | A           | A         | Cartesian product |
| scnn_sparse_w | W        | W        | W           | W         | Cartesian product |
| scnn          | A+W      | A+W      | A+W         | A+W       | Cartesian product |

"skip" for an operand means its zeros are removed from the vectors the multiplier array
sees (they take no cycles), stored compressed in on-chip buffers and moved compressed from
DRAM. "gate" means a multiplier that meets a zero operand does no switching (energy only).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DesignTraits:
    cartesian: bool          # Cartesian-product PEs (else dense dot product)
    skip_weights: bool       # zero weights removed from the weight vectors, compressed on chip
    skip_activations: bool   # zero activations removed from the activation vectors, compressed on chip
    # multiplications with a zero operand cost no energy (only DCNN-opt computes such products
    # at all with gating: the SCNN variants gate the operand they already skip, which changes nothing)
    gate_zero_operands: bool
    # DRAM transfers of both operands are compressed even though the PEs see them dense (DCNN-opt);
    # a skipped operand is always compressed, on chip and in DRAM
    compress_dram: bool


DESIGN_TRAITS = {
    "dcnn": DesignTraits(False, False, False, False, False),
    "dcnn_opt": DesignTraits(False, False, False, True, True),
    "scnn_sparse_a": DesignTraits(True, False, True, False, False),
    "scnn_sparse_w": DesignTraits(True, True, False, False, False),
    "scnn": DesignTraits(True, True, True, False, False),
}
