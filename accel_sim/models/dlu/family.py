"""The Fujitsu-DLU-style dynamic fixed-point processor behind the family contract.

A dense datapath of ``dlu.data_type`` lanes fed by a double-buffered local memory, a
statistics block (leading-bit histogram) next to each unit's outputs, and a lock-step
load / compute / drain pipeline: :mod:`.plan` tiles the layer, :mod:`.fast` and
:mod:`.reference` count it, :mod:`.accounting` turns the counts into actions.
"""
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.models.dlu.spec import DLUSpec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.dlu.accounting", "account")
fast = Hook("accel_sim.models.dlu.fast", "fast")
plan = Hook("accel_sim.models.dlu.plan", "plan")
reference = Hook("accel_sim.models.dlu.reference", "reference")

FAMILY = Family(name="dlu", plan=plan, fast=fast, reference=reference, account=account,
                quantized_weights=True, precisions=True,
                counts_from_shape=True,   # a dense datapath: the plan and counts read the layer's shape, never its values
                section=Section(DLUSpec, "Statistics-driven dynamic fixed-point processor (Fujitsu "
                                "DLU style) (family: dlu)."))
