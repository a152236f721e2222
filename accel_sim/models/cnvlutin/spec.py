"""The ``cnvlutin:`` section of an arch config (family: cnvlutin)."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field

CNV = "Albericio et al., Cnvlutin: Ineffectual-Neuron-Free Deep Neural Network Computing, ISCA 2016"
DADN = "Chen et al., DaDianNao, MICRO 2014, as the baseline of Albericio et al., Cnvlutin, ISCA 2016"


@dataclass(frozen=True)
class CnvlutinSpec:
    """Cnvlutin activation skipping and its DaDianNao-like dense baseline."""

    zero_skipping: bool = spec_field(
        "true: Cnvlutin (each unit split into one subunit per neuron lane, fed zero-free bricks of non-zero "
        "activations with their offsets, lanes advancing independently within a window); false: the "
        "DaDianNao-like dense baseline (one brick of neurons per cycle, zeros multiplied).", True, source=CNV)
    units: int = spec_field("Units (DaDianNao tiles); all work on the same window, each on its own filters.",
                            16, positive=True, source=DADN)
    neuron_lanes: int = spec_field(
        "Neuron lanes per unit = neurons per brick (consecutive input channels at one x, y).", 16,
        positive=True, source=DADN)
    filters_per_unit: int = spec_field("Filters (output channels) a unit computes at once.", 16, positive=True,
                                       source=DADN)
    empty_brick_cycles: int = spec_field(
        "Cycles a Cnvlutin lane spends on a brick with no non-zero neuron (its header is still read).", 1,
        unit="cycles", minimum=0, maximum=1,
        source="estimate: the paper does not state it; one cycle is the conservative choice")
    neuron_memory_size: int = spec_field("Central neuron memory (eDRAM) holding the layer's activations.",
                                         4 * 1024 * 1024, unit="size", positive=True, source=f"{DADN} (4 MB NM)")
    synapse_buffer_size: int = spec_field("Synapse buffer (eDRAM) of each unit.", 2 * 1024 * 1024, unit="size",
                                          positive=True, source=f"{DADN} (2 MB SB per tile)")
    accumulator_bits: int = spec_field("Width of a partial sum.", 32, positive=True,
                                       source="estimate: 16-bit fixed-point products accumulated in 32 bits")

    @property
    def peak_macs_per_cycle(self) -> int:
        return self.units * self.neuron_lanes * self.filters_per_unit

    @property
    def offset_bits(self) -> int:
        """Bits of one zero-free offset (position inside a brick)."""
        return max(1, (self.neuron_lanes - 1).bit_length())
