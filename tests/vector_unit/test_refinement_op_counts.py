"""Each operator's work, counted by hand from its textbook algorithm (the recipes of plan/ops.py are shared by the
fast path and the reference, so only a hand count catches a wrong one). One row of 8 elements, 16-bit, one unit.

Per element (adds, mults, special results, elements read, elements written) and per row (scalars reduced,
special results after the reduction), summed over the passes:

- softmax, online (Milakov & Gimelshein 2018), scores scaled by 1/sqrt(d): pass 1 scale (1 mult), running max
  (1 compare), subtract (1 add), exp (1 special), sum (1 add), reading x; max and sum reduced, 1 / sum once. Pass 2
  scale (1 mult), subtract the max (1 add), exp (1 special), times 1 / sum (1 mult), reading x, writing y.
  Totals: 4 adds, 3 mults, 2 special, 2 reads, 1 write; 2 reduced, 1 row special.
- layernorm (Ba et al. 2016): pass 1 sum and sum of squares (2 adds, 1 mult), reading x; rsqrt of the variance
  once. Pass 2 (x - mean) * rstd * gamma + beta (2 adds, 2 mults), reading x, gamma, beta, writing y.
  Totals: 4 adds, 3 mults, 0 special, 4 reads, 1 write; 2 reduced, 1 row special.
- rmsnorm (Zhang & Sennrich 2019): pass 1 sum of squares (1 add, 1 mult), reading x; rsqrt once. Pass 2
  x * rstd * gamma (2 mults), reading x and gamma, writing y. Totals: 1 add, 3 mults, 0 special, 3 reads, 1 write;
  1 reduced, 1 row special.
- gelu, tanh form 0.5 x (1 + tanh(x (a + b x^2))), a = sqrt(2/pi), b = 0.044715 a folded: x*x, *b, *x (3 mults),
  a + (1 add), tanh (1 special), 1 + (1 add), *x, *0.5 (2 mults): 2 adds, 5 mults, 1 special.
- silu x / (1 + exp(-x)): 1 add, 1 mult (the reciprocal's product), exp and reciprocal (2 special).
- relu: 1 compare. swiglu silu(gate) * up: silu's 1 add, 1 mult, 2 special, and the product (1 mult), reading
  gate and up. rotary (pairs): x_i cos - x_j sin: 2 mults, 1 add, reading x, cos, sin. residual_add: 1 add,
  reading both operands.
"""
from __future__ import annotations

import pytest

from accel_sim.models.vector_unit.fast import fast
from accel_sim.models.vector_unit.plan import plan
from accel_sim.models.vector_unit.plan.ops import ELEMENTWISE
from accel_sim.models.vector_unit.reference import reference
from accel_sim.models.vector_unit.spec import VectorUnitSpec
from accel_sim.foundations.workload.layer import VectorLayer

# op: (adds, mults, special, reads, writes, reduced, row special) per element / per row, from the module doc
HAND = {
    "softmax": (4, 3, 2, 2, 1, 2, 1),
    "layernorm": (4, 3, 0, 4, 1, 2, 1),
    "rmsnorm": (1, 3, 0, 3, 1, 1, 1),
    "gelu": (2, 5, 1, 1, 1, 0, 0),
    "silu": (1, 1, 2, 1, 1, 0, 0),
    "relu": (1, 0, 0, 1, 1, 0, 0),
    "swiglu": (1, 2, 2, 2, 1, 0, 0),
    "rotary": (1, 2, 0, 3, 1, 0, 0),
    "residual_add": (1, 0, 0, 2, 1, 0, 0),
}
SPEC = VectorUnitSpec(units=1, lanes=8, element_bits=16)
WIDTH = 8


@pytest.mark.parametrize("op", list(HAND))
def test_operator_work_is_the_hand_count(op):
    adds, mults, special, reads, writes, reduced, row_special = HAND[op]
    work = plan(SPEC, VectorLayer(op, op, rows=1, width=WIDTH))
    for count in (fast, reference):
        counters = count(work)
        assert (counters.adds, counters.mults) == (WIDTH * adds, WIDTH * mults)
        assert counters.special == WIDTH * special + row_special
        assert counters.reductions == reduced
        assert (counters.sram_read_bits, counters.sram_write_bits) == (WIDTH * 16 * reads, WIDTH * 16 * writes)


def test_the_passes_of_each_operator():
    """Softmax and the norms read their row twice (a reduction, then the output pass); the rest once."""
    assert {op: len(plan(SPEC, VectorLayer(op, op, rows=1, width=WIDTH)).passes) for op in HAND} == {
        op: 2 if op in ("softmax", "layernorm", "rmsnorm") else 1 for op in HAND}
    assert set(ELEMENTWISE) == {"gelu", "silu", "relu", "swiglu", "rotary", "residual_add"}
