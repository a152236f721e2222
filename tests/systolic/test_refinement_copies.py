"""Systolic refinement, part 4: the stacked scan's closed forms against the literal fetch sequence and scan.

- :class:`~accel_sim.models.systolic.fast.ifmap_copies.IfmapCopies`: every copy of every input word of a
  convolution's streamed ifmap, in closed form, is exactly where the fetch sequence holds it
  (stride, padding on each side, channels below and above the array's width, groups, batch, N:M);
- :func:`~accel_sim.models.systolic.fast.stacked_scan.stacked_misses` (which slides on a miss to the nearest
  set holding a copy, from those closed forms) against the whole group's vectorised scan of the
  literal demand stream, on the same variety of layers.
"""
from __future__ import annotations

from unittest.mock import patch

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS, ReadBufferGeometry
from accel_sim.models.systolic.fast.demand import demand_stream, streamed_requests
from accel_sim.models.systolic.fast.estimate_buffer import sweeps
from accel_sim.models.systolic.fast.ifmap_copies import IfmapCopies
from accel_sim.models.systolic.fast.read_buffers import read_misses
from accel_sim.models.systolic.fast import stacked_scan
from accel_sim.models.systolic.fast.stacked_scan import stacked_misses
from accel_sim.models.systolic.plan import operands
from accel_sim.models.systolic.plan.mapping import map_layer
from accel_sim.models.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.foundations.workload.layer import ConvLayer, NMSparsity

BUFFER = BufferSpec(size=1024)


@st.composite
def conv_cases(draw):
    """(layer, mapping) of a small convolution whose ifmap the array streams (ws or os)."""
    kernel_h, kernel_w = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    pads = [draw(st.integers(0, 2)) for _ in range(4)]
    in_h = draw(st.integers(max(1, kernel_h - pads[0] - pads[1]), 7))
    in_w = draw(st.integers(max(1, kernel_w - pads[2] - pads[3]), 7))
    channels = draw(st.integers(1, 7))
    groups = draw(st.sampled_from([1, channels]))
    nm = draw(st.sampled_from([None, (1, 2), (2, 4), (3, 4)]))
    dataflow = "ws" if nm is not None else draw(st.sampled_from(["ws", "os"]))
    layer = ConvLayer("c", in_h=in_h, in_w=in_w, in_channels=channels, out_channels=2 * groups,
                      kernel_h=kernel_h, kernel_w=kernel_w, stride_h=draw(st.integers(1, 3)),
                      stride_w=draw(st.integers(1, 3)), pad_top=pads[0], pad_bottom=pads[1], pad_left=pads[2],
                      pad_right=pads[3], groups=groups, batch=draw(st.integers(1, 2)),
                      weight_sparsity=NMSparsity(*nm) if nm is not None else None)
    spec = SystolicSpec(rows=draw(st.integers(1, 5)), cols=draw(st.integers(1, 4)), dataflow=dataflow,
                        ifmap_sram=BUFFER, filter_sram=BUFFER, ofmap_sram=BUFFER, nm_sparsity=nm is not None)
    return layer, map_layer(spec, layer)


@settings(max_examples=80, deadline=None, derandomize=True)
@given(case=conv_cases())
def test_copies_in_closed_form_are_where_the_fetch_sequence_holds_them(case):
    layer, mapping = case
    sequence = operands.fetch_sequence(mapping, operands.operand_matrices(mapping, layer), "ifmap")
    copies = IfmapCopies(mapping, layer)
    order = np.argsort(sequence, kind="stable")   # positions of each address, ascending
    ordered = sequence[order]
    for address in np.unique(sequence[sequence != NO_ADDRESS]).tolist():
        first, end = np.searchsorted(ordered, [address, address + 1])
        assert sorted(copies.positions(address)) == order[first:end].tolist()


def _stacked_and_literal(case, capacity: int, words_per_cycle: int):
    """(stacked scan's misses, the literal whole-group scan's misses), or None for a buffer that
    cannot slide (SCALE-Sim would loop forever)."""
    layer, mapping = case
    if mapping is None:
        mapping = map_layer(SystolicSpec(rows=2, cols=2, dataflow="ws", ifmap_sram=BUFFER, filter_sram=BUFFER,
                                         ofmap_sram=BUFFER, nm_sparsity=True), layer)
    mats = operands.operand_matrices(mapping, layer)
    sequence = operands.fetch_sequence(mapping, mats, "ifmap")
    geometry = ReadBufferGeometry(capacity, words_per_cycle, sequence.size, int((sequence != NO_ADDRESS).sum()))
    if geometry.prefetch_sets == 0 and geometry.active_sets < geometry.sets:
        return None
    expected = read_misses(geometry, sequence, demand_stream(mapping, mats, "ifmap"))
    repeats = sweeps(mapping, "ifmap")
    sweep = streamed_requests(mapping, mats, "ifmap", 1 if repeats > 1 else None)
    got = stacked_misses(geometry, sequence, sweep, IfmapCopies(mapping, layer), repeats,
                         mapping.row_folds * mapping.fold_lines)
    return got, expected


@settings(max_examples=60, deadline=None, derandomize=True)
@example(case=(ConvLayer("c", in_h=5, in_w=5, in_channels=6, out_channels=4, kernel_h=3, kernel_w=3, stride_h=2,
                         pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, weight_sparsity=NMSparsity(2, 4)),
               None), capacity=40, words_per_cycle=2)
@given(case=conv_cases(), capacity=st.integers(2, 120), words_per_cycle=st.integers(1, 4))
def test_stacked_scan_equals_the_literal_scan_on_strided_padded_pruned_convolutions(case, capacity, words_per_cycle):
    scans = _stacked_and_literal(case, capacity, words_per_cycle)
    if scans is not None:
        got, expected = scans
        assert got.lines.tolist() == expected.lines.tolist()
        assert got.bursts.tolist() == expected.bursts.tolist()


@settings(max_examples=40, deadline=None, derandomize=True)
@given(case=conv_cases(), capacity=st.integers(2, 120), words_per_cycle=st.integers(1, 4),
       bounds_chunk=st.integers(1, 9), lookahead=st.integers(1, 4), piece=st.integers(1, 6))
def test_stacked_scan_in_small_pieces_equals_the_literal_scan(case, capacity, words_per_cycle, bounds_chunk,
                                                              lookahead, piece):
    """The scan's batch sizes only say how much is looked at per numpy call: tiny ones (the set bounds
    counted a few words at a time, idle requests looked past one or two at a time, stamps checked
    a few requests at a time) give the same misses as the literal scan, and the set bounds are
    where the valid words say."""
    layer, mapping = case
    with patch.multiple(stacked_scan, BOUNDS_CHUNK=bounds_chunk, IDLE_LOOKAHEAD=lookahead, CHECK_PIECE=piece,
                        FIRST_CHUNK=piece):
        scans = _stacked_and_literal(case, capacity, words_per_cycle)
        if mapping is not None:
            sequence = operands.fetch_sequence(mapping, operands.operand_matrices(mapping, layer), "ifmap")
            valid = np.flatnonzero(sequence != NO_ADDRESS)
            geometry = ReadBufferGeometry(capacity, words_per_cycle, sequence.size, valid.size)
            words, n = geometry.set_words, geometry.sets
            literal = [0] + [int(valid[j * words - 1]) + 1 for j in range(1, n)] + [sequence.size]
            assert stacked_scan.set_bounds(geometry, sequence).tolist() == literal
    if scans is not None:
        got, expected = scans
        assert got.lines.tolist() == expected.lines.tolist()
        assert got.bursts.tolist() == expected.bursts.tolist()


def test_a_block_starting_at_stack_row_w_minus_2_is_scanned_as_a_border_block():
    """A 2 x 1 array (W = 2 stacked columns) streams (os) the 4 pixels of a 2 x 2 single-channel input
    under a 1 x 1 kernel (T = 1 row per block): a 2 x 2 stack of 2 blocks, fetched along anti-diagonals as
    p0, p2, p1, p3. Block 0 starts at stack row 0 = W - 2, one row before the first full diagonal (row
    W - 1): its first diagonal holds p0 alone, so it is a border block (its cells from the general closed
    form); the interior table would put its cell (0, 0) at position W * 0 - W (W - 1) / 2 = -1. Two output
    channels on one column: the sweep runs twice, the second from where the first left the window (4-word
    buffer, 1 word a cycle), so block 0's first cell is checked against a moved window. The stacked scan
    finds the literal scan's misses (7 miss lines)."""
    layer = ConvLayer("c", in_h=2, in_w=2, in_channels=1, out_channels=2, kernel_h=1, kernel_w=1)
    mapping = map_layer(SystolicSpec(rows=2, cols=1, dataflow="os", ifmap_sram=BUFFER, filter_sram=BUFFER,
                                     ofmap_sram=BUFFER), layer)
    sequence = operands.fetch_sequence(mapping, operands.operand_matrices(mapping, layer), "ifmap")
    assert sequence.tolist() == [0, 2, 1, 3] and sweeps(mapping, "ifmap") == 2
    got, expected = _stacked_and_literal((layer, mapping), capacity=4, words_per_cycle=1)
    assert expected.lines.size == 7
    assert (got.lines.tolist(), got.bursts.tolist()) == (expected.lines.tolist(), expected.bursts.tolist())
