"""What each non-matrix operator costs per element and per row: passes over the row.

An operator reads its row in one or more passes. In a pass every element takes ``adds`` and
``mults`` ALU operations and ``special`` special-function results (exp, reciprocal, rsqrt,
tanh), reads ``reads`` elements from SRAM (the input plus per-element parameters such as a
norm's gamma or rotary's cos / sin) and writes ``writes``. A pass that ends in a row reduction
(softmax's max and sum, a norm's sums) adds a tree over the lanes for each of its ``reduced``
scalars and ``row_special`` special-function results on them (1 / sum, rsqrt of the variance)
before the next pass can start. Counts are of the textbook algorithm, written out per operator
below; none is tuned.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pass:
    adds: int = 0        # ALU additions / subtractions / comparisons per element
    mults: int = 0       # ALU multiplications per element
    special: int = 0     # special-function results per element
    reads: int = 1       # elements read from SRAM per element
    writes: int = 0      # elements written to SRAM per element
    reduced: int = 0     # row scalars reduced over the lanes at the end of the pass
    row_special: int = 0  # special-function results per row after the reduction


OPS: dict[str, tuple[Pass, ...]] = {
    # Online softmax (Milakov & Gimelshein 2018, arXiv:1805.02867), scores scaled by 1/sqrt(d):
    # pass 1 scale, running max, subtract, exp, sum (max and sum reduced, 1 / sum once per row);
    # pass 2 scale, subtract the max, exp, multiply by 1 / sum.
    "softmax": (Pass(adds=3, mults=1, special=1, reads=1, reduced=2, row_special=1),
                Pass(adds=1, mults=2, special=1, reads=1, writes=1)),
    # LayerNorm (Ba et al. 2016): pass 1 sum and sum of squares (rsqrt of the variance per row);
    # pass 2 (x - mean) * rstd * gamma + beta, reading x, gamma, beta.
    "layernorm": (Pass(adds=2, mults=1, reads=1, reduced=2, row_special=1),
                  Pass(adds=2, mults=2, reads=3, writes=1)),
    # RMSNorm (Zhang & Sennrich 2019): pass 1 sum of squares (rsqrt per row); pass 2 x * rstd * gamma.
    "rmsnorm": (Pass(adds=1, mults=1, reads=1, reduced=1, row_special=1),
                Pass(mults=2, reads=2, writes=1)),
    # GELU, tanh form (Hendrycks & Gimpel 2016): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))):
    # x*x, *x, *0.044715, *sqrt(2/pi), 0.5*x, final product = 5 mults; 2 adds; 1 tanh.
    "gelu": (Pass(adds=2, mults=5, special=1, reads=1, writes=1),),
    # SiLU x * sigmoid(x) = x / (1 + exp(-x)): exp and reciprocal, 1 add, 1 mult.
    "silu": (Pass(adds=1, mults=1, special=2, reads=1, writes=1),),
    # ReLU: one comparison.
    "relu": (Pass(adds=1, reads=1, writes=1),),
    # SwiGLU's element-wise part (Shazeer 2020): silu(gate) * up, reading gate and up.
    "swiglu": (Pass(adds=1, mults=2, special=2, reads=2, writes=1),),
    # Rotary embedding (Su et al. 2021, RoFormer): x_i cos - x_j sin (pairs), reading x, cos, sin
    # (a precomputed table).
    "rotary": (Pass(adds=1, mults=2, reads=3, writes=1),),
    # Residual addition: read both operands, add, write.
    "residual_add": (Pass(adds=1, reads=2, writes=1),),
}

# Operators that work element by element (one pass, no reduction): their rows can be merged.
ELEMENTWISE = tuple(name for name, passes in OPS.items() if len(passes) == 1 and not passes[0].reduced)
