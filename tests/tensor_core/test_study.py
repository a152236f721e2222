"""The ampere-2to4 study: columns, bound names, published numbers next to the model's."""
from accel_sim.studies.ampere_2to4 import COLUMNS, ampere_2to4, bert_layer_speedup
from accel_sim.studies.registry import all_studies, write_study
from accel_sim.tensor_core.counters import LATENCY_BOUND, PATHS


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
    assert frame[frame.n == 1].speedup.min() < 0.6
    large = frame[(frame.m == 4096) & (frame.n == 4096) & (frame.k == 4096)].iloc[0]
    assert 1.3 < large.speedup < 2.0
    quantities = " ".join(c.quantity for c in output.comparisons)
    assert "large FP16 GEMMs" in quantities and "GEMV" in quantities and "BERT" in quantities
    assert any("GAP" in c.quantity for c in output.comparisons)   # the batch-1 GEMV gap is stated
    # the missing mechanism, located: shared memory sustaining 70 % of its peak lands in the band, L2 does not
    diagnostics = {c.quantity.split("DIAGNOSTIC: ")[1][:40]: c for c in output.comparisons if "DIAGNOSTIC" in c.quantity}
    smem70 = next(c for q, c in diagnostics.items() if q.startswith("shared_memory_bandwidth sustaining 70%"))
    assert abs(smem70.simulated - 1.35) <= smem70.tolerance * 1.35
    assert all(c.simulated > 1.6 for q, c in diagnostics.items() if q.startswith("l2_bandwidth"))
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
