"""Studies: registry, the reproduce command, and the SCALE-Sim validation study's result."""
import matplotlib.pyplot as plt
import pandas as pd

from accel_sim.cli.main import main
from accel_sim.studies import registry
from accel_sim.studies.registry import Comparison, Study, StudyOutput, all_studies, reproduce_all


def test_list_names_every_study(capsys):
    assert main(["reproduce", "--list"]) == 0
    printed = capsys.readouterr().out
    assert all(name in printed for name in all_studies())


def test_scalesim_validation_study_is_exact_in_calc_mode(tmp_path):
    out = tmp_path / "sv"
    assert main(["reproduce", "scalesim-validation", "--out", str(out)]) == 0
    frame = pd.read_csv(out / "results.csv")
    calc = frame[frame.bandwidth_mode == "calc"]
    assert len(calc) >= 100 and (calc.cycles == calc.scalesim_cycles).all()
    user = frame[frame.bandwidth_mode == "user"]
    stalled = user[user.scalesim_stall_cycles > 0]
    assert (stalled.stall_error.abs() < 0.05).all()
    assert (user[user.scalesim_stall_cycles == 0].stall_cycles == 0).all()
    assert "Published vs simulated" in (out / "README.md").read_text()
    comparison = pd.read_csv(out / "comparison.csv")
    assert list(comparison.columns) == ["quantity", "unit", "published", "simulated", "relative_error", "tolerance",
                                        "source"]
    totals = comparison[comparison.quantity.str.endswith("total cycles (CALC)")]
    assert len(totals) == len(calc) and (totals.relative_error == 0).all() and (totals.tolerance == 0).all()


def test_reproduce_all_writes_gallery(tmp_path):
    names = ("scalesim-validation",)  # every study runs in its own model's tests; the gallery needs one
    reproduce_all(tmp_path, names)
    gallery = (tmp_path / "README.md").read_text()
    for name in names:
        assert f"({name}/README.md)" in gallery and (tmp_path / name / "figure.png").exists()
    collected = pd.read_csv(tmp_path / "comparison.csv")
    assert set(collected.study) == set(names)
    assert len(collected) == len(pd.read_csv(tmp_path / names[0] / "comparison.csv"))
    assert "## Published vs simulated, every study" in gallery


def test_comparison_relative_error_and_tolerance():
    row = Comparison("speed-up", "x", 2.0, 2.3, "paper", tolerance=0.2)
    assert abs(row.relative_error - 0.15) < 1e-12 and row.within_tolerance is True
    assert Comparison("speed-up", "x", 2.0, 2.5, "paper", tolerance=0.2).within_tolerance is False
    trend = Comparison("falls as PEs grow", "fraction", None, 0.3, "paper")
    assert trend.relative_error is None and trend.within_tolerance is None
    table = registry.comparison_markdown((row, trend))
    assert "+15.0 %" in table[2] and "20 % (met)" in table[2] and "| 0.3 |" in table[3]


def _tiny_study() -> StudyOutput:
    return StudyOutput(pd.DataFrame({"x": [1]}), plt.figure(), "tiny", (Comparison("q", "x", 1.0, 1.0, "me"),))


def _broken_study() -> StudyOutput:
    raise ZeroDivisionError("a bug in one study")


def test_a_failing_study_does_not_stop_the_others(tmp_path, monkeypatch, capsys):
    studies = {"a-broken": Study("a-broken", "Broken", _broken_study), "b-tiny": Study("b-tiny", "Tiny", _tiny_study)}
    monkeypatch.setattr(registry, "all_studies", lambda: studies)
    assert main(["reproduce", "all", "--out", str(tmp_path)]) == 1
    assert "study a-broken failed: ZeroDivisionError: a bug in one study" in capsys.readouterr().err
    assert "ZeroDivisionError" in (tmp_path / "a-broken" / "error.txt").read_text()
    assert pd.read_csv(tmp_path / "b-tiny" / "results.csv").x.tolist() == [1]
    gallery = (tmp_path / "README.md").read_text()
    assert "Broken: FAILED" in gallery and "(b-tiny/README.md)" in gallery


def test_unknown_study_exits_2(capsys):
    assert main(["reproduce", "no-such-study", "--out", "x"]) == 2
    assert "no such study" in capsys.readouterr().err


def _study_writing(value: int):
    def run() -> StudyOutput:
        return StudyOutput(pd.DataFrame({"x": [value]}), plt.figure(), f"study {value}",
                           (Comparison("q", "x", 1.0, float(value), "me"),))
    return run


def _tiny_registry(monkeypatch, costs: dict[str, float]) -> None:
    studies = {name: Study(name, name.upper(), _study_writing(i), cpu_s) for i, (name, cpu_s) in
               enumerate(costs.items())}
    monkeypatch.setattr(registry, "all_studies", lambda: studies)


def test_parallel_gallery_writes_the_same_files_as_serial(tmp_path, monkeypatch):
    """Issue 21: `reproduce all` runs studies in worker processes; what it writes must not depend on it."""
    _tiny_registry(monkeypatch, {"a": 1.0, "b": 3.0, "c": 2.0})
    serial, parallel = reproduce_all(tmp_path / "serial", jobs=1), reproduce_all(tmp_path / "parallel", jobs=2)
    assert serial == parallel and set(serial.comparisons) == {"a", "b", "c"} and not serial.failures
    files = sorted(p.relative_to(tmp_path / "serial") for p in (tmp_path / "serial").rglob("*") if p.is_file())
    assert len(files) == 1 + 1 + 3 * 4      # gallery README and comparison.csv, four files per study
    for path in files:   # READMEs name their own folder in the regenerate command
        if path.suffix != ".png":
            written = (tmp_path / "parallel" / path).read_bytes().replace(b"/parallel", b"/serial")
            assert (tmp_path / "serial" / path).read_bytes() == written, path


def test_longest_study_starts_first_and_progress_names_what_finished(tmp_path, monkeypatch):
    _tiny_registry(monkeypatch, {"a": 1.0, "b": 3.0, "c": 2.0})
    started, finished = [], []
    reproduce_all(tmp_path, jobs=2, on_study=started.append, on_done=finished.append)
    assert started == ["b", "c", "a"] and sorted(finished) == ["a", "b", "c"]
    gallery = (tmp_path / "README.md").read_text()
    assert gallery.index("(a/README.md)") < gallery.index("(b/README.md)") < gallery.index("(c/README.md)")


def test_a_failing_study_in_a_worker_is_reported(tmp_path, monkeypatch):
    studies = {"a-broken": Study("a-broken", "Broken", _broken_study), "b-tiny": Study("b-tiny", "Tiny", _tiny_study)}
    monkeypatch.setattr(registry, "all_studies", lambda: studies)
    gallery = reproduce_all(tmp_path, jobs=2)
    assert gallery.failures == {"a-broken": "ZeroDivisionError: a bug in one study"}
    assert list(gallery.comparisons) == ["b-tiny"]
    assert "ZeroDivisionError" in (tmp_path / "a-broken" / "error.txt").read_text()


def test_reproduce_jobs_below_one_is_refused_before_any_work(tmp_path, capsys):
    assert main(["reproduce", "all", "--jobs", "0", "--out", str(tmp_path / "g")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["accel-sim: error: --jobs: '0': expected a number of studies run at once >= 1"] or (
        len(err) == 1 and "--jobs" in err[0] and ">= 1" in err[0])
    assert not (tmp_path / "g").exists()
