"""What a model counts during a run: actions, with declared units. No energy here."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ActionCount:
    """``count`` actions of one kind on one component.

    ``component`` names the hardware instance ("ifmap_sram", "dram", "pe_array");
    ``component_class`` and ``action`` select the energy-table entry ("sram"/"read",
    "mult_int"/"op"); ``bits`` is the width of one action; ``capacity_bytes`` is the
    size of a storage component, for tables whose cost depends on it.
    """

    component: str
    component_class: str
    action: str
    count: int
    bits: int
    capacity_bytes: int = 0

    def __post_init__(self) -> None:
        if self.count < 0:
            raise ValueError(f"{self.component}.{self.action}: negative count {self.count}")
