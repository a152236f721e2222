"""The generic PE array (issue 6) behind the family contract: one output-stationary array whose
level of weight-sparsity support (``pe_array.sparsity_support``: none / memory / gating /
skipping / reassignment) is a single switch, so each level's effect is seen alone."""
from accel_sim.foundations.contract import Family, Section
from accel_sim.models.pe_array.accounting import account
from accel_sim.models.pe_array.fast import fast
from accel_sim.models.pe_array.plan import plan
from accel_sim.models.pe_array.reference import reference
from accel_sim.models.pe_array.spec import PEArraySpec

FAMILY = Family(name="pe_array", plan=plan, fast=fast, reference=reference, account=account,
                quantized_weights=True,
                section=Section(PEArraySpec, "Generic PE array with a selectable level of sparsity "
                                "support (family: pe_array)."))
