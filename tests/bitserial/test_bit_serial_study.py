"""The bit-serial study, reduced to one layer and three designs (a few seconds)."""
import matplotlib

matplotlib.use("Agg")

from accel_sim.studies.bit_serial import COLUMNS, PUBLISHED, TOLERANCE, bit_serial_study  # noqa: E402
from accel_sim.studies.registry import all_studies  # noqa: E402


def test_study_is_registered():
    assert "bit-serial" in all_studies()


def test_reduced_study_speedups_comparisons_and_readme():
    out = bit_serial_study(designs=("dadiannao", "stripes", "shapeshifter_gs1_cr0"), layers=("conv4_g0",))
    frame = out.results
    assert list(frame.columns) == COLUMNS
    total = frame[frame.layer == "all"].set_index("design")
    layer = frame[frame.layer == "conv4_g0"].set_index("design")
    assert total.speedup["dadiannao"] == 1.0
    # Stripes: p_a cycles per step of 16 windows, DaDianNao one window per cycle: at most 16 / p_a
    assert 1.0 < total.speedup["stripes"] <= 16 / layer.activation_bits["stripes"]
    assert total.speedup["shapeshifter_gs1_cr0"] >= total.speedup["stripes"]   # run-time width <= profiled width
    expected = [p for p in PUBLISHED if p[0] in total.index and p[5] in total.index]
    assert len(out.comparisons) == len(expected) == 3
    stripes = out.comparisons[0]
    assert stripes.published == 1.92 and stripes.tolerance == TOLERANCE and "MICRO 2016" in stripes.source
    assert stripes.simulated == total.speedup["stripes"]
    dyn = out.comparisons[2]
    assert abs(dyn.simulated - total.cycles["stripes"] / total.cycles["shapeshifter_gs1_cr0"]) < 1e-12
    assert f"| stripes | {total.cycles['stripes']:,} | {total.speedup['stripes']:.2f}x |" in out.readme
    assert "n/a" in out.readme   # designs not run are named, not invented
