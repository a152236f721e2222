"""Cnvlutin (Albericio et al., ISCA 2016) and its DaDianNao-like dense baseline behind the family contract.

``cnvlutin.zero_skipping`` switches between the two on the same machine (``units`` x
``neuron_lanes`` x ``filters_per_unit`` multipliers).
"""
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.models.cnvlutin.spec import CnvlutinSpec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.cnvlutin.accounting", "account")
fast = Hook("accel_sim.models.cnvlutin.fast", "fast")
plan = Hook("accel_sim.models.cnvlutin.plan", "plan")
reference = Hook("accel_sim.models.cnvlutin.reference", "reference")

FAMILY = Family(name="cnvlutin", plan=plan, fast=fast, reference=reference, account=account,
                section=Section(CnvlutinSpec, "Cnvlutin activation skipping and its DaDianNao-like dense "
                                "baseline (family: cnvlutin)."))
