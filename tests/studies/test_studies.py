"""Studies: registry, the reproduce command, and the SCALE-Sim validation study's result."""
import matplotlib.pyplot as plt
import pandas as pd

from accel_sim.cli import main
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
