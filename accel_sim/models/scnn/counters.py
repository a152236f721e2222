"""What one SCNN-family layer run counts: the raw counters both paths return.

Every action the energy model charges (:mod:`accel_sim.models.scnn.accounting`) comes from one of
these fields; the fast path and the reference fill them independently and the refinement
tests compare them field by field. Units in the comments; all integers.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class SCNNCounters(Counters):
    # time
    compute_cycles: int            # cycles: per pass, inputs in to the last group's drain end
    input_load_stall_cycles: int   # cycles: passes waiting for their input tiles from DRAM
    dram_stream_stall_cycles: int  # cycles: passes waiting for streamed weights / outputs / partial sums after compute
    barrier_idle_cycles: int       # PE-cycles: PEs waiting at the per-group barriers
    group_cycles: int              # cycles: sum over passes and groups of the slowest PE's busy cycles
    pe_busy_cycles: int            # PE-cycles: sum of every PE's busy cycles
    steps: int                     # steps: Cartesian (I-vector x F-vector) steps; dense: dot-product beats
    bank_conflict_cycles: int      # PE-cycles: busy cycles beyond one per step (same-bank products serialised)
    # multiplier array and accumulators
    products: int                  # products: multiplier products issued (out-of-plane ones included)
    macs_issued: int               # products: of two operands the multipliers see, with an output in the plane
    multiplier_ops: int            # products: that switch a multiplier (DCNN-opt: zero operands gated)
    crossbar_transfers: int        # words: products scattered through the crossbar to the accumulator banks
    accumulator_adds: int          # adds: partial-sum additions in the accumulators
    accumulator_reads: int         # words: accumulator entries read (read-modify-write)
    accumulator_writes: int        # words: accumulator entries written
    # buffers
    iaram_reads: int               # entries: activations read from the IARAM
    iaram_write_bits: tuple[int, ...]  # bits: input tiles written into the IARAMs, per (conv group, image)
    oaram_write_bits: tuple[int, ...]  # bits: compressed outputs written into the OARAMs, per (conv group, image)
    weight_fifo_reads: int         # entries: F-vector entries read from the weight FIFOs
    weight_fifo_writes: int        # entries: F-vector entries broadcast into the weight FIFOs
    weight_fifo_overflow_blocks: int  # blocks: (segment, group) weight blocks with more F-vectors than FIFO entries
    psum_oaram_words: int          # words: partial sums kept in the OARAM between channel chunks (written, then read)
    # drain
    halo_link_words: int           # words: halo partial sums sent to PEs of the same temporal tile
    spilled_partial_sums: int      # words: halo partial sums to other temporal tiles (through DRAM)
    ppu_outputs: int               # outputs: drained through the post-processing unit
    # DRAM
    dram_read_bits: int            # bits
    dram_write_bits: int           # bits
