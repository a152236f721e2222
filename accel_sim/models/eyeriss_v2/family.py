"""Eyeriss v2 (Chen et al., IEEE JETCAS 2019) behind the family contract: PE clusters on a hierarchical mesh,
PEs that keep iacts and weights CSC-coded and skip zeros in both, two MACs a cycle."""
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.models.eyeriss_v2.spec import EyerissV2Spec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.eyeriss_v2.accounting", "account")
fast = Hook("accel_sim.models.eyeriss_v2.fast", "fast")
plan = Hook("accel_sim.models.eyeriss_v2.plan", "plan")
reference = Hook("accel_sim.models.eyeriss_v2.reference", "reference")

FAMILY = Family(name="eyeriss_v2", plan=plan, fast=fast, reference=reference, account=account,
                section=Section(EyerissV2Spec, "Eyeriss v2: hierarchical-mesh PE clusters, CSC sparse PEs that skip "
                                "zero iacts and weights (family: eyeriss_v2)."))
