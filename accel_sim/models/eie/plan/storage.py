"""Whether a layer's slices fit each PE's SRAMs and column-pointer width, and what spills.

Per PE (brief): a 128 KB sparse-matrix SRAM of ``entry_bits``-bit entries and a 32 KB pointer
SRAM of ``k + 1`` column pointers of ``pointer_bits`` (16) bits. A layer that does not fit is
refused with every reason at once, or, with ``eie.sram_overflow: dram_spill``, its excess
bytes are loaded from DRAM before the layer and the pointers widened as needed, or, with
``grow_on_chip``, the pointers are widened and the SRAMs sized to hold the layer (no DRAM).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from accel_sim.models.eie.spec import EIESpec
from accel_sim.foundations.errors import InputError, Problem

BITS_PER_BYTE = 8


@dataclass(frozen=True)
class StorageFit:
    pointer_bits: int       # pointer width used (widened only under dram_spill / grow_on_chip)
    spill_bytes: int        # bytes loaded from DRAM before the layer (dram_spill)
    pointer_sram_size: int  # bytes of pointer SRAM per PE (grown only under grow_on_chip)
    spmat_sram_size: int    # bytes of sparse-matrix SRAM per PE (grown only under grow_on_chip)


def storage_fit(arch_name: str, layer_name: str, spec: EIESpec, k: int, entries_per_pe: np.ndarray) -> StorageFit:
    """Check a layer of ``k`` columns whose PEs hold ``entries_per_pe`` entries (InputError if it
    does not fit and the spec does not spill)."""
    most = int(entries_per_pe.max())
    spill = spec.sram_overflow == "dram_spill"
    grow = spec.sram_overflow == "grow_on_chip"
    problems = []
    needed_pointer_bits = max(1, most.bit_length())
    pointer_bits = spec.pointer_bits
    if needed_pointer_bits > spec.pointer_bits:
        if spill or grow:
            pointer_bits = needed_pointer_bits
        else:
            problems.append(("eie.pointer_bits", f"layer {layer_name}: a PE holds {most:,} entries; "
                             f"{spec.pointer_bits}-bit column pointers address at most {(1 << spec.pointer_bits) - 1:,} "
                             f"(needs {needed_pointer_bits} bits, more PEs, or eie.sram_overflow: dram_spill)"))
    spmat_bits = entries_per_pe * spec.entry_bits
    spmat_capacity = spec.spmat_sram_size * BITS_PER_BYTE
    if grow:
        return StorageFit(pointer_bits, 0, max(spec.pointer_sram_size, -(-(k + 1) * pointer_bits // BITS_PER_BYTE)),
                          max(spec.spmat_sram_size, -(-int(spmat_bits.max()) // BITS_PER_BYTE)))
    if int(spmat_bits.max()) > spmat_capacity and not spill:
        problems.append(("eie.spmat_sram_size", f"layer {layer_name}: a PE needs {int(spmat_bits.max()) / 8 / 1024:.1f} KiB "
                         f"of sparse-matrix entries, the SRAM holds {spec.spmat_sram_size / 1024:g} KiB "
                         "(more PEs, a bigger SRAM, or eie.sram_overflow: dram_spill)"))
    pointer_storage = (k + 1) * pointer_bits
    pointer_capacity = spec.pointer_sram_size * BITS_PER_BYTE
    if pointer_storage > pointer_capacity and not spill:
        problems.append(("eie.pointer_sram_size", f"layer {layer_name}: {k + 1:,} column pointers of "
                         f"{pointer_bits} bits need {pointer_storage / 8 / 1024:.1f} KiB per PE, the pointer SRAM "
                         f"holds {spec.pointer_sram_size / 1024:g} KiB (a bigger SRAM or eie.sram_overflow: dram_spill)"))
    if problems:
        raise InputError([Problem(f"arch {arch_name}", path, message) for path, message in problems])
    spill_bits = np.maximum(spmat_bits - spmat_capacity, 0) + max(pointer_storage - pointer_capacity, 0)
    return StorageFit(pointer_bits, int(np.ceil(spill_bits / BITS_PER_BYTE).sum()), spec.pointer_sram_size,
                      spec.spmat_sram_size)
