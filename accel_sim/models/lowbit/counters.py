"""What a low-bit PE array layer counts: time by phase, datapath operations, buffer and DRAM bits."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class LowbitCounters(Counters):
    cycles: int             # binarize + every pass (its slowest PE) + every pass's drain + memory stalls
    binarize_cycles: int    # binarizing and packing the inputs before the first pass (binary layers)
    compute_cycles: int     # sum over passes of the slowest PE's busy cycles
    drain_cycles: int       # pipeline drain after every pass (operand stage, reduction tree, scale)
    idle_pe_cycles: int     # PE-cycles of passes a PE spent waiting for the slowest (imbalance, empty PEs)
    passes: int             # passes of pes columns (over every row tile: row_tiles x column passes)
    row_tiles: int          # tiles of rows the passes run on one after the other (1: every row in each pass)
    xnor_words: int         # word pairs through XNOR + popcount (binary; one popcount each)
    adds: int               # accumulator adds / subtracts of non-zero ternary or log2 weights
    shifts: int             # barrel shifts of an activation by a log2 weight's exponent
    mults: int              # integer multiplications (int-k layers)
    fp_macs: int            # FP32 multiply-adds (fp32 layers)
    macs_issued: int        # multiply-accumulates done (binary: k per dot product, padding bits excluded)
    macs_skipped: int       # multiply-accumulates of zero weights never issued (ternary, log2)
    scale_mults: int        # output scalings: by alpha (binary, ternary), and by beta (binary with activation_scale)
    beta_adds: int          # |x| values summed into the per-row beta (binary with activation_scale)
    outputs: int            # output values computed (before a fused max-pool)
    pool_compares: int      # max-pool compares in the output stage (kernel x kernel per pooled output)
    binarized_words: int    # words of packed input signs the binarizer wrote
    weight_read_bits: int   # weight-buffer bits read (each column's weights once a row tile)
    input_read_bits: int    # input-buffer bits read (each pass broadcasts the rows of its groups)
    dram_read_bits: int     # DRAM bits read: every pass's packed weights (once, or per row tile) and the stored
    #                         input (once, or per pass)
    dram_write_bits: int    # DRAM bits written: every (pooled) output at its stored width
    dram_busy_cycles: int   # cycles the DRAM channel moved data (>= DRAM bytes / bandwidth)
    memory_stall_cycles: int  # cycles waiting on DRAM: the first load, steps where a transfer outlasts its
    #                           pass, the last write-back
    weight_buffer_write_bits: int  # bits loaded into the weight buffer
    input_buffer_write_bits: int   # bits loaded into the input buffer
    output_buffer_write_bits: int  # output bits the array wrote into the output buffer
    output_buffer_read_bits: int   # output bits drained from the output buffer to DRAM
