"""Eyeriss v1 (Chen et al., JSSC 2017) behind the family contract: row-stationary mapping, zero gating,
run-length-coded DRAM traffic."""
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.models.eyeriss.spec import EyerissSpec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.eyeriss.accounting", "account")
components = Hook("accel_sim.models.eyeriss.accounting", "components")
fast = Hook("accel_sim.models.eyeriss.fast", "fast")
plan = Hook("accel_sim.models.eyeriss.plan", "plan")
reference = Hook("accel_sim.models.eyeriss.reference", "reference")

FAMILY = Family(name="eyeriss", plan=plan, fast=fast, reference=reference, account=account, components=components,
                section=Section(EyerissSpec, "Eyeriss v1: row-stationary PE array, zero gating, run-length-coded "
                                "DRAM traffic (family: eyeriss)."))
