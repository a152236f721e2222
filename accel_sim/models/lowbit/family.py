"""The binary / ternary / low-bit PE array behind the family contract.

:mod:`.plan` picks the layer's precision and quantizes its operands, :mod:`.fast` and
:mod:`.reference` count the passes, :mod:`.accounting` turns the counts into actions;
:mod:`.functional` computes the outputs with the datapath's arithmetic (bit-packed XNOR +
popcount, ternary add / subtract of non-zero weights, shift-add, wrapping int-k MACs).
"""
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.models.lowbit.spec import LowbitSpec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.lowbit.accounting", "account")
fast = Hook("accel_sim.models.lowbit.fast", "fast")
plan = Hook("accel_sim.models.lowbit.plan", "plan")
reference = Hook("accel_sim.models.lowbit.reference", "reference")

FAMILY = Family(name="lowbit", plan=plan, fast=fast, reference=reference, account=account,
                precisions=True, activation_precision=True,   # the stored width of a layer's input
                fused_pool=True,                               # a conv's max_pool, pooled in the output stage
                section=Section(LowbitSpec, "Binary / ternary / low-bit PE array with per-layer "
                                "precision (family: lowbit)."))
