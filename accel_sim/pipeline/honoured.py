"""Workload fields a family does not honour, reported instead of dropped.

A layer's shape and the fields that describe its operands (densities, N:M sparsity, pruning patterns,
seed, an operand payload) are read by every family: they decide the operands the family counts on (a
family without zero skipping computes the zeros, and its ``macs_skipped`` stays 0). The fields below ask
the hardware for something (:data:`REQUEST_FIELDS`); a family that cannot do it runs the layer as if
the field were unset and says so with an :class:`~accel_sim.foundations.errors.IgnoredInputWarning`
(``quantized_weight_bits`` on a family without weight-only quantization is refused outright:
:mod:`accel_sim.pipeline.simulate`).
"""
from __future__ import annotations

import warnings

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.contract import Family
from accel_sim.foundations.errors import IgnoredInputWarning
from accel_sim.foundations.workload.layer import VectorLayer
from accel_sim.foundations.workload.spec import FIELD_KINDS
from accel_sim.pipeline.catalog import FAMILIES

# Workload fields that ask the hardware for a datapath or a storage width (the rest of a layer entry is
# shape or operand description).
REQUEST_FIELDS = FIELD_KINDS["request"]


def _precision_families() -> str:
    return " and ".join(name for name, family in FAMILIES.items() if family.precisions)


def _activation_families() -> str:
    return " and ".join(name for name, family in FAMILIES.items() if family.activation_precision)


def unhonoured(family: Family, arch: ArchBase, layer: object) -> list[tuple[str, str]]:
    """``(field, message)`` for each request field ``layer`` sets that ``family`` on ``arch`` ignores.

    Messages name the field, its value, the family and arch, and how the layer runs instead; they do not
    name the layer, so a warning per distinct message is shown once per run."""
    if isinstance(layer, VectorLayer):
        return []
    found = []
    precision = getattr(layer, "precision", None)
    if precision is not None and not family.precisions:
        found.append(("precision", f"workload field precision: {precision} is not honoured by the {family.name} "
                      f"family ({arch.name}): those layers run at its {arch.word_bits}-bit word "
                      f"(per-layer precision runs on {_precision_families()}; leave it out, or use --allow-ignored)"))
    bits = getattr(layer, "activation_bits", None)
    if bits is not None and not family.activation_precision:
        found.append(("activation_bits", f"workload field activation_bits: {bits} is not honoured by the "
                      f"{family.name} family ({arch.name}): activations run at its {arch.word_bits}-bit word "
                      f"(a per-layer activation precision is honoured by {_activation_families()}; leave it out, "
                      "or use --allow-ignored)"))
    pool = getattr(layer, "max_pool", None)
    if pool is not None and not family.fused_pool:
        found.append(("max_pool", f"workload field max_pool: {pool.kernel}/{pool.stride}/{pool.padding} is not "
                      f"honoured by the {family.name} family ({arch.name}): the layer writes its whole output "
                      f"(a pool fused into the output stage is modelled by {_pool_families()}; leave it out, or "
                      "use --allow-ignored)"))
    group = getattr(layer, "quant_group_size", None)
    if group is not None and not family.group_scales:
        for name in ("quant_group_size", "quant_scale_bits"):
            if getattr(layer, name, None) is not None:
                found.append((name, f"workload field {name}: {getattr(layer, name)} is not honoured by the "
                              f"{family.name} family ({arch.name}): its traffic carries no group-wise scales (they "
                              f"count in the device-memory footprint only; the scales are moved by "
                              f"{_group_scale_families()}; leave it out, or use --allow-ignored)"))
    return found


def _pool_families() -> str:
    return " and ".join(name for name, family in FAMILIES.items() if family.fused_pool)


def _group_scale_families() -> str:
    return " and ".join(name for name, family in FAMILIES.items() if family.group_scales)


def warn_unhonoured(family: Family, arch: ArchBase, layer: object) -> None:
    """:func:`unhonoured` as warnings (Python shows each distinct message once per place)."""
    for _field, message in unhonoured(family, arch, layer):
        warnings.warn(message, IgnoredInputWarning, stacklevel=2)
