"""The binary / ternary / low-bit PE array behind the family contract.

:mod:`.plan` picks the layer's precision and quantizes its operands, :mod:`.fast` and
:mod:`.reference` count the passes, :mod:`.accounting` turns the counts into actions;
:mod:`.functional` computes the outputs with the datapath's arithmetic (bit-packed XNOR +
popcount, ternary add / subtract of non-zero weights, shift-add, wrapping int-k MACs).
"""
from accel_sim.foundations.contract import Family, Section
from accel_sim.models.lowbit.accounting import account
from accel_sim.models.lowbit.fast import fast
from accel_sim.models.lowbit.plan import plan
from accel_sim.models.lowbit.reference import reference
from accel_sim.models.lowbit.spec import LowbitSpec

FAMILY = Family(name="lowbit", plan=plan, fast=fast, reference=reference, account=account,
                precisions=True, activation_precision=True,   # the stored width of a layer's input
                section=Section(LowbitSpec, "Binary / ternary / low-bit PE array with per-layer "
                                "precision (family: lowbit)."))
