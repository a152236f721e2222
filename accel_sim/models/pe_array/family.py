"""The generic PE array (issue 6) behind the family contract: one output-stationary array whose
level of weight-sparsity support (``pe_array.sparsity_support``: none / memory / gating /
skipping / reassignment) is a single switch, so each level's effect is seen alone."""
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.models.pe_array.spec import PEArraySpec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.pe_array.accounting", "account")
fast = Hook("accel_sim.models.pe_array.fast", "fast")
plan = Hook("accel_sim.models.pe_array.plan", "plan")
reference = Hook("accel_sim.models.pe_array.reference", "reference")

FAMILY = Family(name="pe_array", plan=plan, fast=fast, reference=reference, account=account,
                quantized_weights=True,
                section=Section(PEArraySpec, "Generic PE array with a selectable level of sparsity "
                                "support (family: pe_array)."))
