"""The families accel_sim simulates: one explicit table, no import by string.

To add a family, import its ``FAMILY`` here and add its section to
:class:`accel_sim.arch.spec.ArchSpec` (``docs/adding_a_model.md``).
"""
from __future__ import annotations

from accel_sim.arch.spec import ArchSpec
from accel_sim.cnvlutin.family import FAMILY as CNVLUTIN
from accel_sim.dlu.family import FAMILY as DLU
from accel_sim.eie.family import FAMILY as EIE
from accel_sim.family.contract import Family
from accel_sim.lowbit.family import FAMILY as LOWBIT
from accel_sim.pe_array.family import FAMILY as PE_ARRAY
from accel_sim.scnn.family import FAMILY as SCNN
from accel_sim.simt.family import FAMILY as SIMT
from accel_sim.systolic.family import FAMILY as SYSTOLIC
from accel_sim.tensor_core.family import FAMILY as TENSOR_CORE

FAMILIES: dict[str, Family] = {family.name: family for family in (
    SYSTOLIC, EIE, SCNN, PE_ARRAY, TENSOR_CORE, CNVLUTIN, DLU, SIMT, LOWBIT,
)}


def family_of(arch: ArchSpec) -> Family:
    """The family that simulates ``arch`` (its ``family:`` field)."""
    try:
        return FAMILIES[arch.family]
    except KeyError:
        raise ValueError(f"arch {arch.name!r}: no model for family {arch.family!r}; "
                         f"known: {', '.join(FAMILIES)}") from None
