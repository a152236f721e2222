"""Buffer residency (pure): which operand is fetched from DRAM once and which once per pass.

Weights: a group's weights come from DRAM once when an average filter tile of them (compressed
or dense) fits the weight buffer (``weight_sram_size``), else once per pixel tile. Inputs: once
when the whole group's inputs fit the input buffer (``input_sram_size``), else once per filter
tile. Outputs are written once. The traffic and its timing are counted in
:mod:`..fast.memory` and :mod:`..reference.memory`.
"""
from __future__ import annotations

import math

from accel_sim.models.pe_array.spec import PEArraySpec

BITS_PER_BYTE = 8


def weights_resident(spec: PEArraySpec, weight_bits: int, filter_tiles: int) -> bool:
    return math.ceil(weight_bits / filter_tiles) <= spec.weight_sram_size * BITS_PER_BYTE


def inputs_resident(spec: PEArraySpec, input_bits: int) -> bool:
    return input_bits <= spec.input_sram_size * BITS_PER_BYTE
