"""What a PE-array layer counts: time, MACs by fate, decodes, crossbar traffic, and the words
and bits each memory level moves. Summed over every group and tile of the layer."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class PEArrayCounters(Counters):
    cycles: int                     # the layer: compute and the DRAM streams overlapped
    compute_cycles: int             # every tile's cycles (the slowest row, decoder latency included)
    dram_cycles: int                # the longest DRAM stream, latency included (user bandwidth; 0 in calc)
    row_busy_cycles: int            # cycles PE rows spent on weight vectors / chunks, all rows and tiles
    filter_tiles: int               # filter tiles of every group
    pixel_tiles: int                # pixel tiles of every group
    macs_issued: int                # MACs the multipliers performed (dense levels: all; else both operands non-zero)
    macs_gated: int                 # MACs of the layer reaching a gated multiplier (a zero operand)
    macs_skipped: int               # MACs of the layer never issued (zero weights the decoder skipped)
    nm_padding_slots: int           # multiplier slots on N:M padding past the reduction (gated, not MACs)
    decoder_chunks: int             # chunks decoded (index-decoder actions), every tile
    macs_reassigned: int            # MACs of weights another row took (stolen weights x pixels)
    crossbar_weights: int           # weights (words) crossing the reassignment crossbar
    crossbar_psums: int             # partial sums (accumulator words) sent back, one per pixel per run
    weight_dram_bits: int           # weights read from DRAM (= written into the weight buffer)
    input_dram_bits: int            # inputs read from DRAM (= written into the input buffer)
    output_words: int               # outputs written to the output buffer and to DRAM (words)
    weight_sram_read_bits: int      # weight-buffer reads (bits), one stream per pixel tile
    input_sram_read_words: int      # input-buffer reads = activation register-file writes (words)
    activation_rf_reads: int        # activation register-file reads (words)
