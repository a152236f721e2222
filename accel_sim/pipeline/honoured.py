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


def _families_with(capability: str) -> str:
    """The families whose :class:`Family` flag ``capability`` is set, for a message."""
    return " and ".join(name for name, family in FAMILIES.items() if getattr(family, capability))


def _ignored(field: str, value: object, family: Family, arch: ArchBase, instead: str, elsewhere: str) -> tuple[str, str]:
    """``(field, message)``: the field and its value, the family and arch, how the layer runs ``instead``, and
    where the request is honoured (``elsewhere``)."""
    return field, (f"workload field {field}: {value} is not honoured by the {family.name} family ({arch.name}): "
                   f"{instead} ({elsewhere}; leave it out, or use --allow-ignored)")


def unhonoured(family: Family, arch: ArchBase, layer: object) -> list[tuple[str, str]]:
    """``(field, message)`` for each request field ``layer`` sets that ``family`` on ``arch`` ignores.

    Messages name the field, its value, the family and arch, and how the layer runs instead; they do not
    name the layer, so a warning per distinct message is shown once per run."""
    if isinstance(layer, VectorLayer):
        return []
    found = []
    precision = getattr(layer, "precision", None)
    if precision is not None and not family.precisions:
        found.append(_ignored("precision", precision, family, arch, f"those layers run at its {arch.word_bits}-bit "
                              f"word", f"per-layer precision runs on {_families_with('precisions')}"))
    bits = getattr(layer, "activation_bits", None)
    if bits is not None and not family.activation_precision:
        found.append(_ignored("activation_bits", bits, family, arch, f"activations run at its {arch.word_bits}-bit "
                              "word", "a per-layer activation precision is honoured by "
                              f"{_families_with('activation_precision')}"))
    pool = getattr(layer, "max_pool", None)
    if pool is not None and not family.fused_pool:
        found.append(_ignored("max_pool", f"{pool.kernel}/{pool.stride}/{pool.padding}", family, arch,
                              "the layer writes its whole output", "a pool fused into the output stage is modelled "
                              f"by {_families_with('fused_pool')}"))
    if getattr(layer, "quant_group_size", None) is not None and not family.group_scales:
        for name in ("quant_group_size", "quant_scale_bits"):
            if getattr(layer, name, None) is not None:
                found.append(_ignored(name, getattr(layer, name), family, arch, "its traffic carries no group-wise "
                                      "scales", "they count in the device-memory footprint only; the scales are "
                                      f"moved by {_families_with('group_scales')}"))
    return found


def warn_unhonoured(family: Family, arch: ArchBase, layer: object) -> None:
    """:func:`unhonoured` as warnings (Python shows each distinct message once per place)."""
    for _field, message in unhonoured(family, arch, layer):
        warnings.warn(message, IgnoredInputWarning, stacklevel=2)
