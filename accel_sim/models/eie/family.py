"""EIE (Han et al., ISCA 2016) behind the family contract: sparse matrix x sparse vector for
fully connected and LSTM layers."""
from accel_sim.models.eie.accounting import account, components
from accel_sim.models.eie.fast import fast
from accel_sim.models.eie.plan import plan
from accel_sim.models.eie.reference import reference
from accel_sim.foundations.contract import Family, Section
from accel_sim.models.eie.spec import EIESpec

FAMILY = Family(name="eie", plan=plan, fast=fast, reference=reference, account=account,
                components=components, shares_work=True,
                section=Section(EIESpec, "EIE: sparse matrix x sparse vector engine (Han et al., ISCA "
                                "2016) (family: eie)."))
