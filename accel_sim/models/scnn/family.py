"""SCNN (Parashar et al., ISCA 2017) and its comparison designs DCNN / DCNN-opt behind the family contract."""
from accel_sim.foundations.contract import Family, Section
from accel_sim.models.scnn.accounting import account, components
from accel_sim.models.scnn.fast import fast
from accel_sim.models.scnn.plan import plan
from accel_sim.models.scnn.reference import reference
from accel_sim.models.scnn.spec import SCNNSpec

FAMILY = Family(name="scnn", plan=plan, fast=fast, reference=reference, account=account,
                components=components, shares_work=True,
                section=Section(SCNNSpec, "SCNN and its dense baselines DCNN / DCNN-opt (Parashar et "
                                "al., ISCA 2017) (family: scnn)."))
