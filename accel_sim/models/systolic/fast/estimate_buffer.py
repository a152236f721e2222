"""The ifmap and filter read buffers under CALC bandwidth, fast path (SCALE-Sim 3.0.0's stall-free
estimate buffer, ``memory/read_buffer_estimate_bw.py``; geometry in
:class:`~accel_sim.hardware.scalesim_scratchpad.EstimateBufferGeometry`).

The buffer groups the words it fetches into sets of ``set_words`` new addresses; a request hits
when its address is in the open set or in a completed set of the active window, and every word
put into a set is one DRAM read. The window holds ``active_sets`` sets and slides by
``prefetch_sets`` when it is full. SCALE-Sim's active fraction is one half, so the slide drops
every set the window held (``active_sets == prefetch_sets``): the buffer's memory is an *epoch*
of ``active_words`` distinct fetches, forgotten at once when the epoch is full. A request is a
DRAM read iff its address was not requested since the current epoch began.

- An operand whose footprint is smaller than one epoch is read once (no slide ever happens).
- One that holds each address once per block (GEMM ifmaps, dense / N:M filters): its demand
  stream is blocks of distinct words, each repeated in the same order
  (:func:`repeated_blocks`), and :func:`block_walk_reads` counts the reads block by block.
- Otherwise (convolution ifmaps, row-wise sparsity): :func:`epoch_scan_reads` scans the group's
  demand stream, epoch by epoch, with each request's previous occurrence; an operand streamed
  along the array rows is one sweep repeated for every column fold (:func:`sweeps`), built once.
"""
from __future__ import annotations

import math

import numpy as np

from accel_sim.foundations.errors import SimulationError
from accel_sim.hardware.scalesim_scratchpad import ESTIMATE_FILL_WORDS_PER_CYCLE, EstimateBufferGeometry
from accel_sim.models.systolic.fast.demand import demand_stream
from accel_sim.models.systolic.fast.fold_sets import has_closed_form
from accel_sim.models.systolic.fast.read_buffers import FIRST_CHUNK
from accel_sim.models.systolic.plan import SystolicPlan
from accel_sim.models.systolic.plan.mapping import SystolicMapping
from accel_sim.models.systolic.plan.operands import role


def epoch_words(capacity_words: int) -> int:
    """Distinct fetches the buffer remembers before it forgets them all (one window of sets)."""
    g = EstimateBufferGeometry(capacity_words)
    if g.active_sets != g.prefetch_sets:
        raise SimulationError("the CALC read buffer's fast path assumes SCALE-Sim's half-active window")
    return g.active_words


def calc_overflows(footprint_words: int, capacity_words: int) -> bool:
    """Whether a CALC read buffer's window ever slides: the operand fills a whole epoch."""
    return footprint_words >= epoch_words(capacity_words)


def sweeps(mapping: SystolicMapping, operand: str) -> int:
    """How many times the operand's demand stream repeats one sweep, address for address: an
    operand streamed along the array rows is swept again for every column fold."""
    r = role(mapping, operand)
    return mapping.col_folds if r.kind == "stream" and r.edge_dim == mapping.dataflow.rows_dim else 1


def repeated_blocks(mapping: SystolicMapping, operand: str, footprint_words: int) -> list[tuple[int, int]]:
    """(distinct words, consecutive repeats) of the demand stream's blocks, in order, for an
    operand :func:`~accel_sim.models.systolic.fast.fold_sets.has_closed_form` accepts. Blocks hold
    disjoint addresses and each repeat demands its words in the same order.

    Preloaded: every address once. Streamed along the array rows: the whole operand is swept
    again for every column fold. Streamed along the columns: each column fold's block is swept
    once per row fold, one sweep after the other.
    """
    r = role(mapping, operand)
    if r.kind == "preload":
        return [(footprint_words, 1)]
    if r.edge_dim == mapping.dataflow.rows_dim:
        return [(footprint_words, sweeps(mapping, operand))]
    other = mapping.dim(r.other_dim)
    return [(other * mapping.used_cols(fold_col), mapping.row_folds) for fold_col in range(mapping.col_folds)]


def block_walk_reads(blocks: list[tuple[int, int]], epoch: int) -> int:
    """DRAM reads of a stream of repeated blocks (see :func:`repeated_blocks`).

    Within a block the stream walks its ``B`` words cyclically; an epoch that begins inside the
    block covers consecutive words of that cycle, so every request is new until one epoch holds
    the whole block (possible only when ``B < epoch``), after which the rest of the block hits.
    ``held``: distinct words in the current epoch.
    """
    reads = held = 0
    for words, repeats in blocks:
        room = epoch - held  # new words the current epoch still takes
        if room > words:  # the block fits in the current epoch: its first sweep only
            reads += words
            held += words
            continue
        requests = words * repeats
        fetched = min(requests, room + words) if epoch > words else requests
        reads += fetched
        held = (fetched - room) % epoch
    return reads


def previous_occurrence(addresses: np.ndarray) -> np.ndarray:
    """Index of each request's previous request of the same address (-1: none)."""
    order = np.argsort(addresses, kind="stable")
    ordered = addresses[order]
    repeat = np.flatnonzero(ordered[1:] == ordered[:-1])
    previous = np.full(addresses.size, -1, dtype=np.int64)
    previous[order[repeat + 1]] = order[repeat]
    return previous


def epoch_scan_reads(addresses: np.ndarray, epoch: int, repeats: int = 1) -> int:
    """DRAM reads of a demand stream, ``addresses`` (one sweep, in demand order) ``repeats`` times
    over: epoch by epoch, a request is new iff its previous occurrence precedes the epoch's first
    request; the epoch ends at its ``epoch``-th new request. Each epoch is searched in growing
    chunks, cut at the sweeps' ends.

    In sweep ``j >= 1`` a request's previous occurrence is in the same sweep or else the address's
    last one in sweep ``j - 1``: its position in two copies of the sweep, shifted by ``(j - 1)`` sweeps.
    """
    length = addresses.size
    previous = previous_occurrence(np.concatenate([addresses, addresses]) if repeats > 1 else addresses)
    total = length * repeats
    start = reads = 0
    while start < total:
        position, found, chunk = start, 0, max(epoch, FIRST_CHUNK)
        end = None
        while position < total:
            sweep = position // length
            stop = min(total, position + chunk, (sweep + 1) * length)
            first = position - sweep * length + (length if sweep else 0)  # index in the two copies
            shift = (sweep - 1) * length if sweep else 0
            new = np.flatnonzero(previous[first:first + stop - position] < start - shift)
            if found + new.size >= epoch:
                end = position + int(new[epoch - found - 1])
                break
            found += new.size
            position, chunk = stop, 2 * chunk
        if end is None:  # the last epoch stays open
            return reads + found
        reads += epoch
        start = end + 1
    return reads


def calc_read_words(plan: SystolicPlan, operand: str, footprint_words: int) -> int:
    """DRAM words of a read operand with unconstrained bandwidth (SCALE-Sim CALC mode), exact."""
    capacity = plan.capacity_words[operand]
    if not calc_overflows(footprint_words, capacity):
        return footprint_words
    epoch = epoch_words(capacity)
    mapping = plan.mapping
    if has_closed_form(mapping, plan.layer, operand):
        return block_walk_reads(repeated_blocks(mapping, operand, footprint_words), epoch)
    repeats = sweeps(mapping, operand)
    sweep = demand_stream(mapping, plan.matrices, operand, col_folds=1 if repeats > 1 else None)
    return epoch_scan_reads(sweep.addresses, epoch, repeats)


def calc_first_fill_cycle(footprint_words: int, capacity_words: int, first_request_line: int) -> int:
    """First DRAM cycle of a CALC read buffer (SCALE-Sim ``read_buffer_estimate_bw``).

    An operand that fits its active sets is filled whole, in sets of ``capacity // SETS``
    words, just before cycle 0. Otherwise the first fill covers the prefetch sets and ends
    just before the operand's first request.
    """
    g = EstimateBufferGeometry(capacity_words)
    if not calc_overflows(footprint_words, capacity_words):
        words = math.ceil(footprint_words / g.set_words) * g.set_words
        return -math.ceil(words / ESTIMATE_FILL_WORDS_PER_CYCLE)
    return first_request_line - math.ceil(g.prefetch_words / ESTIMATE_FILL_WORDS_PER_CYCLE)
