"""The ``skipper:`` config section: one row of MAC lanes fed zero-free activations through a FIFO."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field


@dataclass(frozen=True)
class SkipperSpec:
    lanes: int = spec_field("MAC lanes; each multiplies one activation by one weight per cycle.", 16,
                            positive=True, source="example: a made-up accelerator")
    fifo_depth: int = spec_field("Entries of the activation FIFO between the fetcher and the lanes.", 4,
                                 positive=True, source="example")
    weight_buffer_size: int = spec_field("Weight buffer capacity.", 64 * 1024, unit="size", positive=True,
                                         source="example")
