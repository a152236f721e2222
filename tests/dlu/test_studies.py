"""The dfp-training and precision-energy studies (reduced schedules; the full ones run in benchmarks/)."""
import matplotlib

matplotlib.use("Agg")
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from accel_sim.cli.main import main  # noqa: E402
from accel_sim.systems.nn.training import Schedule  # noqa: E402
from accel_sim.studies.dfp_training import COLUMNS, dfp_training  # noqa: E402
from accel_sim.studies.precision_energy import precision_energy_table  # noqa: E402


def test_dfp_training_study_table_and_story():
    output = dfp_training(Schedule(epochs=2))
    frame = output.results
    assert list(frame.columns) == COLUMNS == ["format", "rule", "bits", "test_accuracy", "overflow_rate",
                                              "cycles_per_step", "energy_pj_per_step"]
    assert set(frame["format"]) == {"float32", "dfp16", "dfp8", "dfp8-nearest", "static8"}
    assert set(frame[frame.format == "dfp8"]["rule"]) == {"overflow", "max", "percentile"}
    f32 = frame[frame.format == "float32"].iloc[0]
    assert f32.overflow_rate == 0 and f32.bits == 32
    for fmt, bits in (("dfp16", 16), ("dfp8", 8)):
        rows = frame[frame.format == fmt]
        assert (rows.bits == bits).all() and (rows.cycles_per_step < f32.cycles_per_step).all()
        assert (rows.energy_pj_per_step < f32.energy_pj_per_step).all()
    assert "static 8-bit point" in output.readme and output.figure.axes[1].get_xlabel().startswith("leading-bit")


def test_precision_energy_per_mac_and_per_step():
    frame = precision_energy_table().set_index("format")
    assert list(frame.index) == ["fp32", "fp16", "int16", "int8", "int4", "ternary", "binary"]
    assert frame.loc["int16", "lanes"] == 2 * frame.loc["fp32", "lanes"] == frame.loc["int8", "lanes"] / 2
    # Horowitz: FP32 MAC 3.7 + 0.9 pJ; INT8 MAC 0.2 + 0.1 (32-bit accumulate); INT16 3.1/4 + 0.1
    assert frame.loc["fp32", "mac_pj"] == pytest.approx(4.6)
    assert frame.loc["int8", "mac_pj"] == pytest.approx(0.3)
    assert frame.loc["int16", "mac_pj"] == pytest.approx(0.875)
    assert (frame["compute_pj_per_mac"].diff().dropna() < 0).all()       # narrower: cheaper compute
    assert (frame["total_pj_per_mac"] > frame["compute_pj_per_mac"]).all()
    assert (frame["lanes"].diff().dropna() >= 0).all()
    rate = frame["macs_per_cycle"]
    assert rate["fp32"] < rate["int16"] < rate["int8"] < rate["int4"] < rate["ternary"] < rate["binary"]
    assert rate["int16"] <= rate["fp16"]             # same lanes; INT16 also feeds the statistics block
    assert (rate <= frame["lanes"]).all()
    assert all("Horowitz" in s or "estimate" in s for s in frame["mac_energy_source"])
    assert "xnor" in frame.loc["binary", "mac_energy_source"]


def test_precision_energy_reproduces_from_the_cli(tmp_path):
    assert main(["reproduce", "precision-energy", "--out", str(tmp_path)]) == 0
    assert (tmp_path / "figure.png").exists()
    assert "1/2 and 1/4" in (tmp_path / "README.md").read_text()
    assert len(pd.read_csv(tmp_path / "results.csv")) == 7
