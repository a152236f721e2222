"""SCNN (Parashar et al., ISCA 2017) and its comparison designs DCNN / DCNN-opt behind the family contract."""
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.models.scnn.spec import SCNNSpec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.scnn.accounting", "account")
components = Hook("accel_sim.models.scnn.accounting", "components")
fast = Hook("accel_sim.models.scnn.fast", "fast")
plan = Hook("accel_sim.models.scnn.plan", "plan")
reference = Hook("accel_sim.models.scnn.reference", "reference")

FAMILY = Family(name="scnn", plan=plan, fast=fast, reference=reference, account=account,
                components=components, shares_work=True,
                section=Section(SCNNSpec, "SCNN and its dense baselines DCNN / DCNN-opt (Parashar et "
                                "al., ISCA 2017) (family: scnn)."))
