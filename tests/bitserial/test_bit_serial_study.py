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


def test_bitfusion_over_stripes_on_its_own_benchmark():
    """LeNet-5 of Bit Fusion's benchmarks (2 / 2 bits everywhere): Stripes takes p_a = 2 cycles per step, Bit
    Fusion at 64 bricks one (16 lanes x 1 x 1 brick products), so exactly 2x; the comparison row is the
    geometric mean over the networks run."""
    out = bit_serial_study(designs=("dadiannao", "stripes", "bitfusion"), layers=("conv4_g0",), networks=("lenet5",))
    frame = out.results
    own = frame[frame.workload == "bitfusion_lenet5"].set_index("design")
    assert list(own.reference) == ["stripes", "stripes"]
    assert own.cycles["stripes"] == 2 * own.cycles["bitfusion"]
    row = next(c for c in out.comparisons if "speed-up over Stripes" in c.quantity)
    assert row.published == 2.6 and row.simulated == 2.0 and "1 of its benchmarks" in row.quantity
    assert "| bitfusion_lenet5 |" in out.readme and "Geometric mean speed-up 2.00x" in out.readme


def test_bitfusion_benchmarks_are_generated_and_carry_the_source_bit_widths():
    """workloads/bitfusion/*.yaml are the generator's output, and a few layers carry the widths of
    hsharma35/bitfusion bitfusion/src/benchmarks/benchmarks.py (input dtype / w_dtype)."""
    import importlib.util
    from pathlib import Path

    from accel_sim.foundations.workload.loader import load_workload
    from accel_sim.studies.bit_serial import BITFUSION_DIR, BITFUSION_NETWORKS

    spec = importlib.util.spec_from_file_location("_bf_generate", BITFUSION_DIR / "_generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert set(module.NETWORKS) == set(BITFUSION_NETWORKS)
    for name in BITFUSION_NETWORKS:
        assert module.render(name) == (BITFUSION_DIR / f"{name}.yaml").read_text(encoding="utf-8")

    def bits(network: str, layer: str) -> tuple[int, int]:
        found = {l.name: l for l in load_workload(str(Path(BITFUSION_DIR) / f"{network}.yaml")).layers}[layer]
        return found.activation_bits, found.weight_bits
    assert bits("svhn", "conv0") == (8, 1) and bits("svhn", "conv1") == (1, 1)      # FXP8 data, Bin weights
    assert bits("cifar10", "conv0") == (8, 8) and bits("cifar10", "fc6") == (2, 2)
    assert bits("alexnet", "conv1_a") == (8, 4) and bits("alexnet", "fc3") == (8, 8)
    assert bits("resnet18", "conv1_a") == (8, 8) and bits("resnet18", "conv5_2_b") == (4, 4)
    assert bits("lstm", "matmul") == (4, 4)
