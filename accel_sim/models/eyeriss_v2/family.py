"""Eyeriss v2 (Chen et al., IEEE JETCAS 2019) behind the family contract: PE clusters on a hierarchical mesh,
PEs that keep iacts and weights CSC-coded and skip zeros in both, two MACs a cycle."""
from accel_sim.foundations.contract import Family, Section
from accel_sim.models.eyeriss_v2.accounting import account
from accel_sim.models.eyeriss_v2.fast import fast
from accel_sim.models.eyeriss_v2.plan import plan
from accel_sim.models.eyeriss_v2.reference import reference
from accel_sim.models.eyeriss_v2.spec import EyerissV2Spec

FAMILY = Family(name="eyeriss_v2", plan=plan, fast=fast, reference=reference, account=account,
                section=Section(EyerissV2Spec, "Eyeriss v2: hierarchical-mesh PE clusters, CSC sparse PEs that skip "
                                "zero iacts and weights (family: eyeriss_v2)."))
