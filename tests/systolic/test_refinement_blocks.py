"""Systolic refinement, part 3: the fast path's blocks against the literal ones they shortcut.

- the demand streams (index arithmetic over a group) and the per-cycle output counts (closed
  form) against SCALE-Sim-style demand matrices built fold by fold (pad, flip, skew);
- the drain-to-drain jumps of the output buffer against SCALE-Sim's word-by-word
  :class:`~accel_sim.hardware.WriteScratchpad`, DRAM write latency included;
- the vectorised miss scan against the set-by-set :class:`~accel_sim.hardware.ReadScratchpad`;
- the fold-by-fold closed-form scan (and the closed-form output counts) against the whole-group ones.
"""
from __future__ import annotations

import numpy as np
import simpy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from accel_sim.hardware import Link, WordsPerCycle
from accel_sim.hardware.scalesim_scratchpad import (NO_ADDRESS, ReadBufferGeometry, ReadScratchpad, WriteBufferGeometry,
                                                    WriteScratchpad)
from accel_sim.models.systolic.fast.demand import DemandStream, FoldRequests, demand_stream, first_demand_line, streamed_requests
from accel_sim.models.systolic.fast.ofmap_drain import DrainTimeline, FoldedWrites, LineWrites, ofmap_writes_per_line
from accel_sim.models.systolic.fast.estimate_buffer import sweeps
from accel_sim.models.systolic.fast.fold_sets import StackedFetch, first_request_line, fold_set_misses, has_closed_form
from accel_sim.models.systolic.fast import read_buffers
from accel_sim.models.systolic.fast.ifmap_copies import IfmapCopies
from accel_sim.models.systolic.fast.read_buffers import read_misses
from accel_sim.models.systolic.fast.stacked_scan import stacked_misses
from accel_sim.models.systolic.plan import operands
from accel_sim.models.systolic.plan.mapping import map_layer
from accel_sim.models.systolic.reference.demand import fold_demand_matrix
from accel_sim.models.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, NMSparsity

BUFFER = BufferSpec(size=1024)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(dataflow=st.sampled_from(["os", "ws", "is"]), rows=st.integers(1, 5), cols=st.integers(1, 5),
       m=st.integers(1, 9), k=st.integers(1, 9), n=st.integers(1, 9), conv=st.booleans())
def test_demand_streams_equal_scalesim_style_demand_matrices(dataflow, rows, cols, m, k, n, conv):
    layer = (ConvLayer("c", in_h=m + 2, in_w=k + 2, in_channels=2, out_channels=n, kernel_h=2, kernel_w=3,
                       stride_h=2, pad_top=1, pad_left=1) if conv else GemmLayer("g", m=m, k=k, n=n))
    mapping = map_layer(SystolicSpec(rows=rows, cols=cols, dataflow=dataflow, ifmap_sram=BUFFER, filter_sram=BUFFER,
                                      ofmap_sram=BUFFER), layer)
    mats = operands.operand_matrices(mapping, layer)

    def whole_group(operand):
        return np.concatenate([fold_demand_matrix(mapping, mats, operand, fc, fr)
                               for fc in range(mapping.col_folds) for fr in range(mapping.row_folds)])

    for operand in operands.READ_OPERANDS:
        matrix = whole_group(operand)
        assert matrix.shape[0] == mapping.demand_lines
        lines, columns = np.nonzero(matrix != NO_ADDRESS)
        stream = demand_stream(mapping, mats, operand)
        assert stream.lines.tolist() == lines.tolist()
        assert stream.addresses.tolist() == matrix[lines, columns].tolist()
        assert first_demand_line(mapping, mats, operand) == (int(lines[0]) if lines.size else None)
    outputs = whole_group("ofmap")
    counts = (outputs != NO_ADDRESS).sum(axis=1)
    assert ofmap_writes_per_line(mapping).tolist() == counts.tolist()
    folded, cum = FoldedWrites(mapping), np.cumsum(counts)
    assert folded.total == int(cum[-1]) and folded.lines == cum.size
    assert [folded.through(line) for line in range(-1, cum.size)] == [0] + cum.tolist()
    assert ([folded.line_of(word) for word in range(0, int(cum[-1]) + 2)]
            == np.searchsorted(cum, np.arange(0, cum[-1] + 2), side="left").tolist())


@settings(max_examples=60, deadline=None, derandomize=True)
@example(counts=[6, 0, 3], capacity=2, words_per_cycle=1, latency=1)  # line 0 overflows while its drain runs
@example(counts=[6, 1, 6, 1], capacity=4, words_per_cycle=2, latency=2)
@given(counts=st.lists(st.integers(0, 6), min_size=1, max_size=120), capacity=st.integers(2, 40),
       words_per_cycle=st.integers(1, 5), latency=st.integers(0, 2))
def test_drain_timeline_jumps_like_the_word_by_word_write_buffer(counts, capacity, words_per_cycle, latency):
    """Lines of output words issued back to back; each line waits what the buffer charges."""
    env = simpy.Environment()
    channel = Link(env, "ofmap_dram", WordsPerCycle(words_per_cycle), latency, 8)
    literal = WriteScratchpad(env, "ofmap_sram", capacity, channel)
    stall, waits = 0, []
    for line, words in enumerate(counts):
        waits.append(literal.store(words, line + stall))
        stall += waits[-1]
    last = len(counts) - 1 + stall  # cycle of the last line's last write
    literal.flush(last)

    fast = DrainTimeline(WriteBufferGeometry(capacity, words_per_cycle), LineWrites(np.array(counts)), latency)
    stall, fast_waits = 0, []
    line = 0
    while line < len(counts):
        waiting = fast.advance(len(counts), stall)
        stop = len(counts) if waiting is None else waiting
        fast_waits.extend([0] * (stop - line))
        if waiting is None:
            break
        fast_waits.append(fast.line(waiting, waiting + stall))
        stall += fast_waits[-1]
        line = waiting + 1
    fast.flush(last)
    assert fast_waits == waits
    assert fast.drain_ends == literal.drain_ends
    assert fast.drained_words == literal.drained.reads


@settings(max_examples=60, deadline=None, derandomize=True)
@given(data=st.data(), capacity=st.integers(2, 300), words_per_cycle=st.integers(1, 6))
def test_vectorised_miss_scan_claims_the_bursts_of_the_literal_buffer(data, capacity, words_per_cycle):
    addresses = data.draw(st.lists(st.integers(0, 60), min_size=1, max_size=150))
    fetch = np.array(addresses + [NO_ADDRESS] * data.draw(st.integers(0, 5)))
    fetch = fetch[np.array(data.draw(st.permutations(range(fetch.size))))]
    present = sorted(set(addresses))
    demand = np.array(data.draw(st.lists(st.sampled_from(present), min_size=1, max_size=300)))
    lines = np.sort(np.array(data.draw(st.lists(st.integers(0, 50), min_size=demand.size, max_size=demand.size))))
    geometry = ReadBufferGeometry(capacity, words_per_cycle, fetch.size, int((fetch != NO_ADDRESS).sum()))
    if geometry.prefetch_sets == 0 and geometry.active_sets < geometry.sets:
        return  # a buffer that cannot slide (SCALE-Sim would loop forever)
    fast = read_misses(geometry, fetch, DemandStream(lines, demand))
    saved = read_buffers.STAMP_MAX
    read_buffers.STAMP_MAX = 2  # the window's stamps run out every two moves: forgetting them changes nothing
    try:
        renewed = read_misses(geometry, fetch, DemandStream(lines, demand))
    finally:
        read_buffers.STAMP_MAX = saved
    assert (renewed.lines.tolist(), renewed.bursts.tolist()) == (fast.lines.tolist(), fast.bursts.tolist())

    env = simpy.Environment(initial_time=-1000)
    literal = ReadScratchpad(env, "buf", capacity, fetch, Link(env, "dram", WordsPerCycle(words_per_cycle), 1, 8))
    literal.prefill(-1)
    claimed = {}
    for line in np.unique(lines):
        before = literal.bursts
        literal.serve(demand[lines == line], int(line))
        if literal.bursts > before:
            claimed[int(line)] = literal.bursts - before
    assert dict(zip(fast.lines.tolist(), fast.bursts.tolist())) == claimed


@settings(max_examples=80, deadline=None, derandomize=True)
@example(dataflow="ws", rows=2, cols=3, m=7, k=5, n=4, nm=None, capacity=40, words_per_cycle=2)
@example(dataflow="os", rows=4, cols=2, m=3, k=9, n=5, nm=None, capacity=12, words_per_cycle=1)  # T < W
@given(dataflow=st.sampled_from(["os", "ws", "is"]), rows=st.integers(1, 5), cols=st.integers(1, 5),
       m=st.integers(1, 11), k=st.integers(1, 11), n=st.integers(1, 11),
       nm=st.sampled_from([None, (1, 2), (2, 4), (3, 8)]), capacity=st.integers(2, 400),
       words_per_cycle=st.integers(1, 6))
def test_fold_by_fold_closed_form_misses_equal_the_whole_group_scan(dataflow, rows, cols, m, k, n, nm, capacity,
                                                                    words_per_cycle):
    """Closed-form fetch ranks and the memoised fold-by-fold scan against the literal fetch sequence
    and demand stream of a GEMM's operands (the filter also of a convolution), N:M included."""
    sparsity = NMSparsity(*nm) if nm is not None and dataflow == "ws" else None
    layers = [GemmLayer("g", m=m, k=k, n=n, weight_sparsity=sparsity),
              ConvLayer("c", in_h=m + 2, in_w=k + 2, in_channels=2, out_channels=n, kernel_h=2, kernel_w=3,
                        stride_h=2, pad_top=1, pad_left=1, weight_sparsity=sparsity)]
    spec = SystolicSpec(rows=rows, cols=cols, dataflow=dataflow, ifmap_sram=BUFFER, filter_sram=BUFFER,
                        ofmap_sram=BUFFER, nm_sparsity=sparsity is not None)
    for layer in layers:
        mapping = map_layer(spec, layer)
        mats = operands.operand_matrices(mapping, layer)
        for operand in operands.READ_OPERANDS:
            if not has_closed_form(mapping, layer, operand):
                assert isinstance(layer, ConvLayer) and operand == "ifmap"
                continue
            sequence = operands.fetch_sequence(mapping, mats, operand)
            stream = demand_stream(mapping, mats, operand)
            assert first_request_line(mapping, operand) == int(stream.lines[0])
            fetch = StackedFetch(mapping, operand)
            valid = sequence[sequence != NO_ADDRESS]
            assert (fetch.fetch_words, fetch.valid_words) == (sequence.size, valid.size)
            geometry = ReadBufferGeometry(capacity, words_per_cycle, sequence.size, valid.size)
            if geometry.prefetch_sets == 0 and geometry.active_sets < geometry.sets:
                continue  # a buffer that cannot slide (SCALE-Sim would loop forever)
            expected = read_misses(geometry, sequence, stream)
            got = fold_set_misses(mapping, geometry, fetch, operand)
            assert got.lines.tolist() == expected.lines.tolist()
            assert got.bursts.tolist() == expected.bursts.tolist()


@settings(max_examples=60, deadline=None, derandomize=True)
@example(dataflow="ws", rows=2, cols=2, h=6, w=6, n=5, capacity=60, words_per_cycle=2, channels=6)  # C > W
@given(dataflow=st.sampled_from(["os", "ws", "is"]), rows=st.integers(1, 4), cols=st.integers(1, 4),
       h=st.integers(2, 7), w=st.integers(2, 7), n=st.integers(1, 9), capacity=st.integers(2, 200),
       words_per_cycle=st.integers(1, 6), channels=st.integers(1, 7))
def test_one_sweep_per_window_start_equals_the_whole_group_scan(dataflow, rows, cols, h, w, n, capacity,
                                                                words_per_cycle, channels):
    """A convolution's ifmap (an address several times) streamed along the array rows: scanning one
    sweep per window start it meets, idle requests included (the fast path's stacked scan, which jumps
    over the requests whose own fetch set is resident), gives the misses of the whole group's demand
    stream. Channels beyond the array's width put each address's copies in other blocks."""
    layer = ConvLayer("c", in_h=h, in_w=w, in_channels=channels, out_channels=n, kernel_h=2, kernel_w=3,
                      pad_top=1, pad_left=1)
    mapping = map_layer(SystolicSpec(rows=rows, cols=cols, dataflow=dataflow, ifmap_sram=BUFFER, filter_sram=BUFFER,
                                      ofmap_sram=BUFFER), layer)
    mats = operands.operand_matrices(mapping, layer)
    sequence = operands.fetch_sequence(mapping, mats, "ifmap")
    geometry = ReadBufferGeometry(capacity, words_per_cycle, sequence.size, int((sequence != NO_ADDRESS).sum()))
    if geometry.prefetch_sets == 0 and geometry.active_sets < geometry.sets:
        return  # a buffer that cannot slide (SCALE-Sim would loop forever)
    repeats = sweeps(mapping, "ifmap")
    expected = read_misses(geometry, sequence, demand_stream(mapping, mats, "ifmap"))
    col_folds = 1 if repeats > 1 else None
    sweep = (streamed_requests(mapping, mats, "ifmap", col_folds) if operands.role(mapping, "ifmap").kind == "stream"
             else demand_stream(mapping, mats, "ifmap", col_folds))  # idle requests kept, lines in closed form
    got = read_misses(geometry, sequence, sweep, repeats, mapping.row_folds * mapping.fold_lines)
    assert got.lines.tolist() == expected.lines.tolist()
    assert got.bursts.tolist() == expected.bursts.tolist()
    if isinstance(sweep, FoldRequests):
        stacked = stacked_misses(geometry, sequence, sweep, IfmapCopies(mapping, layer), repeats,
                                 mapping.row_folds * mapping.fold_lines)
        assert stacked.lines.tolist() == expected.lines.tolist()
        assert stacked.bursts.tolist() == expected.bursts.tolist()
