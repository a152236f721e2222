"""Ampere-style sparse tensor core (2:4 structured sparsity) behind the family contract.

A layer runs as one GEMM kernel on an A100-like GPU; ``tensor_core.sparse_support`` switches the
2:4 path on and off on the same machine.

Why real 2:4 speed-ups stay below 2x, in this model's terms: the math per stage halves, but only
A shrinks (to ``(w + 2) / 2w`` of its bits with metadata); the dense operand B, the warps'
shared-memory reads of B and the C epilogue do not. A stage that was math-bound dense becomes
shared-memory- (or L2-, DRAM-) bound sparse; a GEMM whose traffic is mostly B (few weights, many
activations) gains nothing. ``bound`` (:class:`~accel_sim.models.tensor_core.counters.TensorCoreCounters`)
names the limiting path.

A batched GEMM (attention heads) is one kernel launch whose CTAs cover every instance, as
cuBLAS's batched / grouped GEMMs do: the family runs it as a grouped layer.
"""
from accel_sim.foundations.contract import Family, Hook, Section
from accel_sim.models.tensor_core.spec import TensorCoreSpec

# Imported on first call (Hook): the catalog loads only this family's spec.
account = Hook("accel_sim.models.tensor_core.accounting", "account")
fast = Hook("accel_sim.models.tensor_core.fast", "fast")
plan = Hook("accel_sim.models.tensor_core.plan", "plan")
reference = Hook("accel_sim.models.tensor_core.reference", "reference")

FAMILY = Family(name="tensor_core", plan=plan, fast=fast, reference=reference, account=account,
                batched_as_groups=True, counts_from_shape=True,
                quantized_weights=True, group_scales=True,
                section=Section(TensorCoreSpec, "Ampere-style sparse tensor core (2:4 structured sparsity) "
                                "(family: tensor_core)."))
