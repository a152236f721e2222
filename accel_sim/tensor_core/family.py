"""Ampere-style sparse tensor core (2:4 structured sparsity) behind the family contract.

A layer runs as one GEMM kernel on an A100-like GPU; ``tensor_core.sparse_support`` switches the
2:4 path on and off on the same machine.
"""
from accel_sim.family.contract import Family
from accel_sim.tensor_core.accounting import account
from accel_sim.tensor_core.fast import fast
from accel_sim.tensor_core.plan import plan
from accel_sim.tensor_core.reference import reference

FAMILY = Family(name="tensor_core", plan=plan, fast=fast, reference=reference, account=account)
