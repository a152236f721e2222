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
    assert (frame.speedup > 0.9).all() and (frame.speedup <= 2.0).all()   # k < 4: metadata + padding slow 2:4 down
    large = frame[(frame.m == 4096) & (frame.n == 4096) & (frame.k == 4096)].iloc[0]
    assert 1.3 < large.speedup < 2.0
    quantities = " ".join(c.quantity for c in output.comparisons)
    assert "large FP16 GEMMs" in quantities and "GEMV" in quantities and "BERT" in quantities
    assert any("GAP" in c.quantity for c in output.comparisons)   # the batch-1 GEMV gap is stated
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
