"""The ampere-2to4 study: columns, bound names, published numbers next to the model's."""
from accel_sim.pipeline.catalog import load_arch
from accel_sim.studies.ampere_2to4 import (COLUMNS, FOOTPRINT_RATIO, PUBLISHED_LARGE_GEMM_SPEEDUP, ampere_2to4,
                                          bert_layer_speedup)
from accel_sim.studies.ampere_2to4_gemv import batch1_gemv
from accel_sim.studies.registry import all_studies, write_study
from accel_sim.models.tensor_core.counters import LATENCY_BOUND, PATHS


def test_study_table_and_comparisons():
    output = ampere_2to4(sizes=(1, 256, 4096))
    frame = output.results
    assert list(frame.columns) == COLUMNS and len(frame) == 27
    assert set(frame.bound) <= set(PATHS) | {LATENCY_BOUND}
    assert (frame.speedup == frame.dense_cycles / frame.sparse_cycles).all()
    assert (frame.speedup <= 2.0).all()
    # slow-downs only where CUTLASS's sparse tiles (no M below 64 in the config) pad a few output features,
    # or k < 4 (metadata and a stage of padding for one product)
    slow = frame[frame.speedup < 0.95]
    assert len(slow) and ((slow.n == 1) | (slow.k == 1)).all()
    # a launch gap (kernel_launch_cycles, 1886 on the A100) is paid by both runs: it dilutes the padded sparse
    # slow-down of the tiniest shapes (0.55 without it, 0.69 with it; issue 33)
    assert frame[frame.n == 1].speedup.min() < 0.75
    large = frame[(frame.m == 4096) & (frame.n == 4096) & (frame.k == 4096)].iloc[0]
    assert 1.3 < large.speedup < 2.0
    quantities = " ".join(c.quantity for c in output.comparisons)
    assert "large FP16 GEMMs" in quantities and "GEMV" in quantities and "BERT" in quantities
    assert any("GAP" in c.quantity for c in output.comparisons)   # the batch-1 GEMV gap is stated
    # the missing mechanism, located: shared memory sustaining 70 % of its peak lands in the band; L2 (already at its
    # measured sustained rate, gpu-benches) does not, even at 60 % of that rate
    diagnostics = {c.quantity.split("DIAGNOSTIC: ")[1][:40]: c for c in output.comparisons if "DIAGNOSTIC" in c.quantity}
    smem70 = next(c for q, c in diagnostics.items() if q.startswith("shared_memory_bandwidth sustaining 70%"))
    assert abs(smem70.simulated - 1.35) <= smem70.tolerance * 1.35
    assert all(c.simulated > max(PUBLISHED_LARGE_GEMM_SPEEDUP) for q, c in diagnostics.items()
               if q.startswith("l2_bandwidth"))
    large = output.comparisons[0]
    assert large.unit == "x" and large.published == 1.35 and large.tolerance is not None


def test_bert_layer_speedup_in_published_range():
    assert 1.1 <= bert_layer_speedup() <= 1.3


def test_study_is_registered_and_writes_files(tmp_path):
    study = all_studies()["ampere-2to4"]
    assert study.run is ampere_2to4
    small = type(study)(study.name, study.title, lambda: ampere_2to4(sizes=(1, 256)))
    write_study(small, tmp_path)
    assert (tmp_path / "results.csv").exists() and (tmp_path / "figure.png").exists()
    assert "Published vs simulated" in (tmp_path / "README.md").read_text()


def test_batch1_gemv_lands_at_the_footprint_ratio_on_both_families():
    """Batch-1 GEMV with 2:4 weights: every kernel streams the weights at DRAM bandwidth, so 2:4 gains its
    footprint ratio (at most 64/36) over the dense tensor-core GEMM and over the CUDA-core GEMV alike."""
    output = ampere_2to4(sizes=(1, 4096))
    rows = [c for c in output.comparisons if c.quantity.startswith("GEMV, batch 1")]
    assert len(rows) == 4 and all("GAP" in c.quantity and c.published == 1.0 for c in rows)
    hardware, ring = rows[:3], rows[3]
    assert all(1.5 < c.simulated <= FOOTPRINT_RATIO for c in hardware)
    # CUTLASS's buffer ring (loads_in_flight: stages) can only slow the shallow dense tiles, never the 2:4 run
    assert "DIAGNOSTIC: loads_in_flight: stages" in ring.quantity and ring.simulated >= hardware[0].simulated
    gemv = output.tables["gemv_batch1"].set_index(["family", "kernel"])
    cuda = gemv.loc[("simt", "dense CUDA-core GEMV (a warp per row)")]
    assert cuda.cycles == cuda.dram_cycles                          # the CUDA-core baseline saturates DRAM
    for family in ("tensor_core", "simt"):
        dense, sparse = gemv.loc[(family, "dense tensor-core GEMM")], gemv.loc[(family, "2:4 tensor-core GEMM")]
        assert sparse.cycles < dense.cycles and cuda.cycles / sparse.cycles > 1.5
        assert sparse.cycles >= sparse.dram_cycles and dense.cycles >= dense.dram_cycles


def test_batch1_gemv_bytes_in_flight_cover_the_memory_latency():
    """Little's law on the 2:4 GEMV kernel: (stages - 2) stages of cp.async per CTA, each 128 rows x 32 kept
    values x 18 bits (FP16 + 2-bit metadata) of A plus 64 x 16 FP16 of B; its smallest wave keeps DRAM busy
    for longer than the memory latency, and a CTA's in-flight bytes alone exceed what its SM port moves in one."""
    gemv = batch1_gemv("ampere_a100", 4096, 4096).set_index(["family", "kernel"])
    sparse = gemv.loc[("tensor_core", "2:4 tensor-core GEMM")]
    assert sparse.tile == "128x16x64/w32x16, 6 stages"
    assert sparse.in_flight_per_sm == 4 * (128 * 32 * 18 // 8 + 64 * 16 * 2)
    spec = load_arch("ampere_a100").tensor_core
    assert sparse.covers_latency == sparse.busy_sms * sparse.in_flight_per_sm / spec.dram_bandwidth
    assert sparse.covers_latency > spec.memory_latency
    assert sparse.in_flight_per_sm > spec.l2_to_sm_bandwidth * spec.memory_latency
    cuda = gemv.loc[("simt", "dense CUDA-core GEMV (a warp per row)")]
    # 4096 rows, 4 per CTA: 1024 CTAs, 10 resident per SM (the grid's share, under the 16 occupancy allows),
    # each warp one 16-byte load per lane in flight
    assert cuda.in_flight_per_sm == 10 * 4 * 32 * 16
    assert cuda.covers_latency > spec.memory_latency
