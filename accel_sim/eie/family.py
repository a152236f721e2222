"""EIE (Han et al., ISCA 2016) behind the family contract: sparse matrix x sparse vector for
fully connected and LSTM layers."""
from accel_sim.eie.accounting import account, components
from accel_sim.eie.fast import fast
from accel_sim.eie.plan import plan
from accel_sim.eie.reference import reference
from accel_sim.family.contract import Family

FAMILY = Family(name="eie", plan=plan, fast=fast, reference=reference, account=account,
                components=components)
