"""The fast path's vectorised pieces against the literal SimPy components they shortcut."""
import numpy as np
import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.errors import SimulationError
from accel_sim.hardware.dram_channel import DramChannel
from accel_sim.hardware.scalesim_scratchpad import ReadBufferGeometry, ReadScratchpad, WriteBufferGeometry, WriteScratchpad
from accel_sim.hardware.scalesim_scratchpad import NO_ADDRESS
from accel_sim.systolic.family import FAMILY
from accel_sim.systolic.fast.demand import DemandStream
from accel_sim.systolic.fast.footprint import touched_input_words
from accel_sim.systolic.fast.ofmap_drain import DrainTimeline
from accel_sim.systolic.fast.read_buffers import read_misses
from accel_sim.systolic.plan.mapping import map_layer
from accel_sim.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.workload.layer import ConvLayer, GemmLayer, NMSparsity
from tests.systolic._scalesim_files import CASES_DIR, load_case


@settings(max_examples=80, deadline=None)
@given(counts=st.lists(st.integers(0, 6), min_size=1, max_size=120), capacity=st.integers(2, 40),
       words_per_cycle=st.integers(1, 5), latency=st.integers(0, 2))
def test_drain_timeline_jumps_like_the_word_by_word_write_buffer(counts, capacity, words_per_cycle, latency):
    """Lines of output words issued back to back; each line waits what the buffer charges."""
    env = simpy.Environment()
    channel = DramChannel(env, "ofmap_dram", words_per_cycle, 1, 8, write_latency=latency)
    literal = WriteScratchpad(env, "ofmap_sram", capacity, channel)
    stall, waits = 0, []
    for line, words in enumerate(counts):
        waits.append(literal.store(words, line + stall))
        stall += waits[-1]
    last = len(counts) - 1 + stall  # cycle of the last line's last write
    literal.flush(last)

    fast = DrainTimeline(WriteBufferGeometry(capacity, words_per_cycle), np.array(counts), latency)
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


@settings(max_examples=80, deadline=None)
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

    env = simpy.Environment(initial_time=-1000)
    literal = ReadScratchpad(env, "buf", capacity, fetch, DramChannel(env, "dram", words_per_cycle, 1, 8))
    literal.prefill(-1)
    claimed = {}
    for line in np.unique(lines):
        before = literal.bursts
        literal.serve(demand[lines == line], int(line))
        if literal.bursts > before:
            claimed[int(line)] = literal.bursts - before
    assert dict(zip(fast.lines.tolist(), fast.bursts.tolist())) == claimed


def test_max_cycles_guard_raises_instead_of_running_on():
    case = load_case(CASES_DIR / "golden_ws")
    layer = case.layers[0]
    with pytest.raises(SimulationError, match="max_cycles"):
        FAMILY.layer_result(case.arch, layer, max_cycles=1000)
    small = GemmLayer("g", m=40, k=20, n=20)
    with pytest.raises(SimulationError, match="max_cycles"):
        FAMILY.layer_result(case.arch, small, reference=True, max_cycles=50)


def test_touched_input_words_skips_strided_gaps_and_pruned_channels():
    buffer = BufferSpec(size=1024)
    ws = SystolicSpec(rows=4, cols=4, dataflow="ws", ifmap_sram=buffer, filter_sram=buffer, ofmap_sram=buffer,
                      nm_sparsity=True)
    strided = ConvLayer("s", in_h=8, in_w=8, in_channels=4, out_channels=2, kernel_h=1, kernel_w=1,
                        stride_h=2, stride_w=2)
    assert touched_input_words(map_layer(ws, strided), strided) == 4 * 4 * 4
    pruned = ConvLayer("p", in_h=8, in_w=8, in_channels=4, out_channels=2, kernel_h=1, kernel_w=1,
                       weight_sparsity=NMSparsity(2, 4))
    assert touched_input_words(map_layer(ws, pruned), pruned) == 8 * 8 * 2
    padded = ConvLayer("q", in_h=4, in_w=4, in_channels=1, out_channels=1, kernel_h=3, kernel_w=3,
                       pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, weight_sparsity=NMSparsity(1, 9))
    assert touched_input_words(map_layer(ws, padded), padded) == 3 * 3  # only offset (0, 0) is kept
