"""SIMT GPU (A100-like CUDA cores and tensor cores) running sparse and dense GEMM kernels as warp
schedules built from the real sparse operand: CSR SpMV (scalar, vector), Sputnik-style and
merge-based SpMM, CSB SpMV for A x and A^T x, BSR on tensor cores, 2:4 tensor cores, and the dense
SIMT / tensor-core GEMM baselines on the same memory model."""
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.models.simt.spec import SimtSpec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.simt.accounting", "account")
fast = Hook("accel_sim.models.simt.fast", "fast")
plan = Hook("accel_sim.models.simt.plan", "plan")
reference = Hook("accel_sim.models.simt.reference", "reference")

FAMILY = Family(name="simt", plan=plan, fast=fast, reference=reference, account=account,
                reads_sections=("tensor_core",),
                section=Section(SimtSpec, "SIMT GPU running sparse kernels as warp schedules; reads "
                                "the A100 machine from tensor_core (family: simt)."))
