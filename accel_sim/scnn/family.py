"""SCNN (Parashar et al., ISCA 2017) and its comparison designs DCNN / DCNN-opt behind the family contract."""
from accel_sim.family.contract import Family
from accel_sim.scnn.accounting import account, components
from accel_sim.scnn.fast import fast
from accel_sim.scnn.plan import plan
from accel_sim.scnn.reference import reference

FAMILY = Family(name="scnn", plan=plan, fast=fast, reference=reference, account=account,
                components=components)
