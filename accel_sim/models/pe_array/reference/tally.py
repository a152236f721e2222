"""What the reference's agents count as they work (mutable, summed over the whole layer)."""
from __future__ import annotations

from accel_sim.hardware.recorder import Recorder


class Tally:
    def __init__(self, recorder: Recorder | None = None) -> None:
        self.recorder = recorder      # teaching traces: the rows' work, waits and grants
        self.filter_tiles = self.pixel_tiles = 0
        self.row_busy_cycles = 0          # cycles rows spent on vectors / chunks
        self.macs_issued = self.macs_gated = self.macs_skipped = self.nm_padding_slots = 0
        self.decoder_chunks = 0           # chunks the decoders / decompressors decoded
        self.macs_reassigned = self.crossbar_weights = self.crossbar_psums = 0
        self.input_sram_read_words = 0    # register-file loads
        self.activation_rf_reads = 0
        self.weight_dram_bits = self.input_dram_bits = self.output_words = self.weight_sram_read_bits = 0
