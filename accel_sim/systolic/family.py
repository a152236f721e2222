"""Dense systolic arrays (SCALE-Sim v3 compatible) behind the family contract."""
from accel_sim.arch.spec import ArchSpec
from accel_sim.family.contract import Family
from accel_sim.systolic.accounting import account, components
from accel_sim.systolic.fast import fast
from accel_sim.systolic.plan import plan
from accel_sim.systolic.reference import reference
from accel_sim.workload.layer import Layer



def work_elements(arch: ArchSpec, layer: Layer) -> int:
    """Addresses the plan may hold for one group (accel_sim.workload.work): the fetch sequences pad
    each GEMM dimension to a multiple of the array's larger side."""
    side = max(arch.systolic.rows, arch.systolic.cols)
    g = layer.gemm()
    m, k, n = (-(-d // side) * side for d in (g.m, g.k, g.n))
    return m * k + k * n + m * n


FAMILY = Family(name="systolic", plan=plan, fast=fast, reference=reference, account=account,
                work_elements=work_elements, components=components)
