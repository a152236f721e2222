"""The SimPy reference's (who, what, when) log on cases small enough to follow by hand."""
from accel_sim.foundations.arch import DramSpec
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.models.systolic.family import FAMILY
from accel_sim.models.systolic.reference import simulate_group
from accel_sim.models.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.foundations.workload.layer import GemmLayer


def arch(mode, read_bytes, ofmap_bytes):
    return ArchSpec(name="t", family="systolic", dram=DramSpec(bandwidth_mode=mode, bandwidth=1, latency=1),
                    systolic=SystolicSpec(rows=2, cols=2, dataflow="ws", ifmap_sram=BufferSpec(read_bytes),
                                          filter_sram=BufferSpec(read_bytes), ofmap_sram=BufferSpec(ofmap_bytes)))


def run(spec, layer):
    log = []
    counters = simulate_group(FAMILY.plan(spec, layer), max_cycles=10_000, log=log)
    return counters, [tuple(entry) for entry in log]


def test_folds_and_drains_with_ideal_dram():
    """WS 2x2, GEMM 3x4x2: two row folds of 2R + C + T - 2 = 7 cycles; the 8-word output buffer
    drains 4 words (1 per line in CALC mode: one word per column, 2 columns) when half full.
    The read buffers are the smallest CALC allows (100 words); CALC reads never stall and log
    nothing, so the log is the folds and the output drains only."""
    spec = arch("calc", 100, 8)
    timing, log = run(spec, GemmLayer("g", m=3, k=4, n=2))
    assert (timing.cycles, timing.read_stall_cycles, timing.write_stall_cycles) == (13, 0, 0)
    assert log == [("fold 0", "start", 0),
                   ("ofmap_sram drain 1", "write start", 5), ("ofmap_sram drain 1", "write end", 6),
                   ("fold 0", "end", 7), ("fold 1", "start", 7),
                   ("ofmap_sram drain 2", "write start", 11), ("ofmap_sram drain 2", "write end", 12),
                   ("fold 1", "end", 14),
                   ("ofmap_sram drain 3", "write start", 13), ("ofmap_sram drain 3", "write end", 14),
                   ("ofmap_sram drain 4", "write start", 15), ("ofmap_sram drain 4", "write end", 15)]


def test_filter_preload_thrashes_a_one_word_half_buffer():
    """4-word filter buffer (one-word sets, two resident), 1 word/cycle, latency 1.

    Fetch order 0, 2, 1, 3 (filter addresses n*K + k, row-major per column block). Cycle 0 loads
    row k=1 (addresses 1, 3): window {0, 2} misses, burst 1 ends in 2: wait 1, charged 2. Line 1
    (cycle 3) loads row k=0 (0, 2): two more slides, bursts end in 5 and 8: waits 1 and 2,
    charged 2 + 4. Stall 8; 5 + 8 = 13 cycles. The ifmap's first miss comes later and finds its
    burst (streamed ahead from cycle 0) long done.
    """
    spec = arch("user", 4, 4)
    layer = GemmLayer("g", m=2, k=2, n=2)
    timing, log = run(spec, layer)
    assert (timing.cycles, timing.compute_cycles, timing.read_stall_cycles, timing.write_stall_cycles) == (13, 5, 8, 0)
    assert log == [("ifmap_sram fill", "read start", -3), ("filter_sram fill", "read start", -3),
                   ("ifmap_sram fill", "read end", -1), ("filter_sram fill", "read end", -1),
                   ("fold 0", "start", 0),
                   ("filter_sram burst 1", "read start", 0), ("filter_sram burst 1", "read end", 2),
                   ("filter_sram burst 2", "read start", 3), ("filter_sram burst 2", "read end", 5),
                   ("filter_sram burst 3", "read start", 6), ("filter_sram burst 3", "read end", 8),
                   ("ifmap_sram burst 1", "read start", 0), ("ifmap_sram burst 1", "read end", 2),
                   ("ofmap_sram drain 1", "write start", 12), ("ofmap_sram drain 1", "write end", 13),
                   ("fold 0", "end", 14),
                   ("ofmap_sram drain 2", "write start", 13), ("ofmap_sram drain 2", "write end", 14)]
    fast = FAMILY.layer_result(spec, layer)
    assert (fast.cycles, fast.stall_cycles) == (13, 8)
