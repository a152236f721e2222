"""EIE (Han et al., ISCA 2016) behind the family contract: sparse matrix x sparse vector for
fully connected and LSTM layers."""
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.models.eie.spec import EIESpec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.eie.accounting", "account")
components = Hook("accel_sim.models.eie.accounting", "components")
fast = Hook("accel_sim.models.eie.fast", "fast")
plan = Hook("accel_sim.models.eie.plan", "plan")
reference = Hook("accel_sim.models.eie.reference", "reference")

FAMILY = Family(name="eie", plan=plan, fast=fast, reference=reference, account=account,
                components=components, shares_work=True,
                section=Section(EIESpec, "EIE: sparse matrix x sparse vector engine (Han et al., ISCA "
                                "2016) (family: eie)."))
