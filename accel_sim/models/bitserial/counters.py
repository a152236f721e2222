"""What a bit-serial layer counts: time, steps, PE activity and operand reads."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.contract import Counters


@dataclass(frozen=True)
class BitSerialCounters(Counters):
    cycles: int            # compute cycles: the steps' costs in order (column registers: the last column's end)
    steps: int             # steps (DNNsim's calls of the tiles: one line per issuing tile)
    tile_steps: int        # (step, tile) pairs in which the tile issues a line
    pe_steps: int          # present windows x the tile's filters, summed over issuing tiles and steps
    idle_pe_steps: int     # columns x rows - pe_steps, summed over issuing tiles and steps
    serial_cycles: int     # PE-cycles: each issuing tile's cost for a window x its filters, summed
    activation_reads: int  # activation words broadcast to the tiles: present windows x lanes per step
    weight_reads: int      # weight words read: the tile's filters x lanes per issuing tile and step
    activation_words: int  # neuron-memory words those reads occupy: present windows x line words per step
    weight_words: int      # synapse-buffer words those reads occupy: the tile's filters x line words per step
    macs_issued: int       # products of slots holding a weight of the layer (Bit-Tactical: not demoted)
    output_words: int      # words the outputs are written in: present windows x the chunk's filters x
                           # words per output (output_bits), per window set and chunk
