"""The skipper behind the family contract: the one object the registry lists."""
from accel_sim.family.contract import Family
from tests.example_family.skipper.accounting import account
from tests.example_family.skipper.fast import fast
from tests.example_family.skipper.plan import plan
from tests.example_family.skipper.reference import reference

FAMILY = Family(name="skipper", plan=plan, fast=fast, reference=reference, account=account)
