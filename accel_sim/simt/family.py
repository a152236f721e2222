"""SIMT GPU (A100-like CUDA cores and tensor cores) running sparse and dense GEMM kernels as warp
schedules built from the real sparse operand: CSR SpMV (scalar, vector), Sputnik-style and
merge-based SpMM, CSB SpMV for A x and A^T x, BSR on tensor cores, 2:4 tensor cores, and the dense
SIMT / tensor-core GEMM baselines on the same memory model."""
from accel_sim.family.contract import Family
from accel_sim.simt.accounting import account
from accel_sim.simt.fast import fast
from accel_sim.simt.plan import plan
from accel_sim.simt.reference import reference

FAMILY = Family(name="simt", plan=plan, fast=fast, reference=reference, account=account)
