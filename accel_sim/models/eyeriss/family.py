"""Eyeriss v1 (Chen et al., JSSC 2017) behind the family contract: row-stationary mapping, zero gating,
run-length-coded DRAM traffic."""
from accel_sim.foundations.contract import Family, Section
from accel_sim.models.eyeriss.accounting import account, components
from accel_sim.models.eyeriss.fast import fast
from accel_sim.models.eyeriss.plan import plan
from accel_sim.models.eyeriss.reference import reference
from accel_sim.models.eyeriss.spec import EyerissSpec

FAMILY = Family(name="eyeriss", plan=plan, fast=fast, reference=reference, account=account, components=components,
                section=Section(EyerissSpec, "Eyeriss v1: row-stationary PE array, zero gating, run-length-coded "
                                "DRAM traffic (family: eyeriss)."))
