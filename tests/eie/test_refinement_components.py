"""The chip's blocks for area and leakage (``accounting.components``), derived by hand from a
config: the refinement cases compare counters and actions, never the blocks the area is priced from."""
from __future__ import annotations

from accel_sim.pipeline.catalog import load_arch
from accel_sim.models.eie.accounting import components
from accel_sim.models.eie.family import FAMILY
from accel_sim.foundations.results.components import Component


def test_components_of_a_small_chip_by_hand():
    # 4 PEs, 3-entry FIFOs of (a_j, j) = 12-bit activation + 10-bit pointer, 5-bit codes (32-entry codebook),
    # 20-bit accumulators, 6 + 6 activation registers of 12 bits; an odd pointer SRAM (1025 B): 512 B banks.
    arch = load_arch("eie", {"eie.n_pes": 4, "eie.fifo_depth": 3, "eie.arithmetic_bits": 12, "eie.pointer_bits": 10,
                             "eie.weight_code_bits": 5, "eie.index_bits": 3, "eie.spmat_sram_width": 16,
                             "eie.accumulator_bits": 20, "eie.activation_registers": 6,
                             "eie.spmat_sram_size": 4096, "eie.pointer_sram_size": 1025,
                             "eie.activation_sram_size": 512})
    assert components(arch) == (
        Component("spmat_read", "sram", 4, 16, 4096),
        Component("pointer_read", "sram", 8, 10, 512),              # two banks of half the pointer SRAM (whole bytes)
        Component("act_rw", "sram", 4, 12, 512),
        Component("act_rw", "register", 4, 2 * 6 * 12),             # source + destination: 144 bits
        Component("act_queue", "register", 4, 3 * (12 + 10)),       # 66 bits
        Component("arithmetic", "register", 4, 32 * 12),             # 2**5 codebook entries: 384 bits
        Component("arithmetic", "mult_int", 4, 12),
        Component("arithmetic", "add_int", 4, 20),
        Component("arithmetic", "add_int", 4, 10),
    )
    assert FAMILY.components(arch) == components(arch)   # the family's hook is this function

