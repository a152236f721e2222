"""Dense systolic arrays (SCALE-Sim v3 compatible) behind the family contract."""
from accel_sim.family.contract import Family
from accel_sim.systolic.accounting import account
from accel_sim.systolic.fast import fast
from accel_sim.systolic.plan import plan
from accel_sim.systolic.reference import reference

FAMILY = Family(name="systolic", plan=plan, fast=fast, reference=reference, account=account)
