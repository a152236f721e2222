"""Dense systolic arrays (SCALE-Sim v3 compatible) behind the family contract."""
from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.foundations.workload.layer import Layer
from accel_sim.models.systolic.spec import SystolicSpec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.systolic.accounting", "account")
components = Hook("accel_sim.models.systolic.accounting", "components")
fast = Hook("accel_sim.models.systolic.fast", "fast")
plan = Hook("accel_sim.models.systolic.plan", "plan")
reference = Hook("accel_sim.models.systolic.reference", "reference")


def work_elements(arch: ArchBase, layer: Layer) -> int:
    """Addresses the plan may hold for one group (accel_sim.foundations.workload.work): the fetch sequences pad
    each GEMM dimension to a multiple of the array's larger side."""
    side = max(arch.systolic.rows, arch.systolic.cols)
    g = layer.gemm()
    m, k, n = (-(-d // side) * side for d in (g.m, g.k, g.n))
    return m * k + k * n + m * n


FAMILY = Family(name="systolic", plan=plan, fast=fast, reference=reference, account=account,
                work_elements=work_elements, components=components, counts_from_shape=True,
                section=Section(SystolicSpec, "Dense systolic array (family: systolic)."))
