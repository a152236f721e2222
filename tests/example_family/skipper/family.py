"""The skipper behind the family contract: its config section and its hooks, the one object the catalog
lists (by the folder's name, in ``accel_sim/pipeline/catalog.py``)."""
from accel_sim.foundations.contract import Family, Section
from accel_sim.models.skipper.accounting import account
from accel_sim.models.skipper.fast import fast
from accel_sim.models.skipper.plan import plan
from accel_sim.models.skipper.reference import reference
from accel_sim.models.skipper.spec import SkipperSpec

FAMILY = Family(name="skipper", plan=plan, fast=fast, reference=reference, account=account,
                section=Section(SkipperSpec, "The example family: MAC lanes fed non-zero activations (family: skipper)."))
