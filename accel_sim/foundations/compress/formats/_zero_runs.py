"""Zero-run coding shared by EIE's relative indices, SCNN's zero runs and RLE.

A stream of non-zeros is stored as entries (value, run), where run is the number of
zeros before the entry since the previous entry (or the segment start). A run field of
``run_bits`` bits holds at most ``max_run = 2**run_bits - 1``. A longer gap inserts filler
entries (value 0, run ``max_run``), each standing for ``max_run`` zeros plus its own zero
slot, so a gap g becomes ``g // (max_run + 1)`` fillers followed by the value with run
``g % (max_run + 1)`` (Han et al., EIE, ISCA 2016, Fig. 3: gap 18 -> runs 15, 2).
"""
from __future__ import annotations

import numpy as np


def gaps_before(segments: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Zeros between each non-zero and the previous one of its segment (or the segment start).

    ``segments`` and ``positions`` are sorted by (segment, position).
    """
    previous = np.empty_like(positions)
    if positions.size:
        previous[0] = -1
        previous[1:] = np.where(segments[1:] == segments[:-1], positions[:-1], -1)
    return positions - previous - 1


def encode_gaps(gaps: np.ndarray, max_run: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Entry runs for a list of gaps, with fillers.

    Returns ``(runs, value_slots, entries_per_value)``: the run of every entry, the entry
    index that holds each non-zero, and how many entries (fillers + 1) each non-zero costs.
    """
    entries_per_value, last_run = np.divmod(gaps, max_run + 1)
    entries_per_value += 1
    value_slots = np.cumsum(entries_per_value)
    runs = np.full(int(value_slots[-1]) if value_slots.size else 0, max_run, dtype=np.int64)
    value_slots -= 1
    runs[value_slots] = last_run
    return runs, value_slots, entries_per_value


def decode_positions(runs: np.ndarray, segment_lengths: np.ndarray) -> np.ndarray:
    """Position of every entry inside its segment, given each segment's number of entries."""
    steps = np.cumsum(runs + 1)
    starts = np.concatenate(([0], np.cumsum(segment_lengths)[:-1])).astype(np.int64)
    base = np.concatenate(([0], steps))[starts]
    segment_of_entry = np.repeat(np.arange(segment_lengths.size), segment_lengths)
    return steps - base[segment_of_entry] - 1
