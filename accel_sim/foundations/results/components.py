"""What a chip is built from, for area and leakage: blocks with declared sizes. No areas here.

A family lists its blocks from its config (``Family.components``); the area table prices them
after the run (:mod:`accel_sim.foundations.energy.area`), the same way the energy table prices actions.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Component:
    """``count`` identical blocks of one kind.

    ``name`` is the hardware instance (the same name as the block's :class:`ActionCount`
    ``component`` where it has actions, e.g. "spmat_read"); ``component_class`` selects the
    area-table entry ("sram", "mult_int", "register", "crossbar"); ``bits`` is the width of one
    word (for a register file or FIFO: all its bits); ``capacity_bytes`` sizes a storage block;
    ``ports`` is a crossbar's input x output port product.
    """

    name: str
    component_class: str
    count: int
    bits: int
    capacity_bytes: int = 0
    ports: int = 0

    def __post_init__(self) -> None:
        if self.count < 0 or self.bits <= 0:
            raise ValueError(f"{self.name}: count {self.count} and bits {self.bits} must be >= 0 and > 0")
