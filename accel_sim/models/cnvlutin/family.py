"""Cnvlutin (Albericio et al., ISCA 2016) and its DaDianNao-like dense baseline behind the family contract.

``cnvlutin.zero_skipping`` switches between the two on the same machine (``units`` x
``neuron_lanes`` x ``filters_per_unit`` multipliers).
"""
from accel_sim.models.cnvlutin.accounting import account
from accel_sim.models.cnvlutin.fast import fast
from accel_sim.models.cnvlutin.plan import plan
from accel_sim.models.cnvlutin.reference import reference
from accel_sim.foundations.contract import Family, Section
from accel_sim.models.cnvlutin.spec import CnvlutinSpec

FAMILY = Family(name="cnvlutin", plan=plan, fast=fast, reference=reference, account=account,
                section=Section(CnvlutinSpec, "Cnvlutin activation skipping and its DaDianNao-like dense "
                                "baseline (family: cnvlutin)."))
