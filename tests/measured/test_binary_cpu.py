"""The binary_cpu group on the CPU SIMD model's NEON cores: the kernel arithmetic by hand, every constant the
model reads for a CPU preset listed with its value (measured_hardware/constants/binary_cpu.yaml), and the
group's cases simulated through the silicon-validation study."""
import math

import pytest
import yaml

from accel_sim.foundations.measured import MEASURED_DIR, load_registry
from accel_sim.studies.silicon_validation import run_groups
from accel_sim.systems.cpu_simd import gemm
from accel_sim.systems.cpu_simd.gemm import binary_gemm, binary_word_bits, binary_word_cycles, fp32_gemm
from accel_sim.systems.cpu_simd.spec import PIXEL1_KRYO, RPI4_CORTEX_A72

CONSTANTS = yaml.safe_load((MEASURED_DIR / "constants" / "binary_cpu.yaml").read_text())["configs"]
KERNEL_CONSTANTS = {"neon_direct_ops": gemm.NEON_DIRECT_OPS, "neon_bgemm_ops": gemm.NEON_BGEMM_OPS}


def test_neon_vector_pair_costs():
    """Direct convolution: eor, cnt, add on 2 ASIMD pipes (3 a cycle issued): 1.5 cycles per 128 binary MACs;
    BGEMM adds an addv: 2 cycles."""
    assert binary_word_bits(RPI4_CORTEX_A72) == 128
    assert binary_word_cycles(RPI4_CORTEX_A72) == 1.5 and binary_word_cycles(RPI4_CORTEX_A72, "bgemm") == 2.0


def test_one_thread_binary_conv_by_hand():
    """daBNN's 3x3 conv of 64 channels on 56 x 56: m = 3136, k = 576 (5 vectors of 128), n = 64, one thread."""
    time = binary_gemm(PIXEL1_KRYO, 3136, 576, 64, threads=1)
    assert time.compute_cycles == 3136 * math.ceil(576 / 128) * 64 * 1.5
    assert time.cycles == time.compute_cycles > time.memory_cycles
    assert fp32_gemm(RPI4_CORTEX_A72, 10, 20, 30, threads=1).compute_cycles == 10 * 20 * 30 / 8   # 2 FMLA x 4 lanes


@pytest.mark.parametrize("cpu", [RPI4_CORTEX_A72, PIXEL1_KRYO], ids=lambda c: c.name)
def test_every_constant_of_a_cpu_preset_is_listed_with_its_value(cpu):
    entries = CONSTANTS[cpu.name]
    for name in ("clock", "cores", "issue_width", "simd_pipes", "fp_vector_bits", "fma", "fp_mul_per_cycle",
                 "dram_bandwidth", "binary_isa"):
        assert entries[name]["value"] == getattr(cpu, name), name
        assert len(str(entries[name]["source"])) > 20
    for name, value in KERNEL_CONSTANTS.items():
        if name in entries:
            assert entries[name]["value"] == value


def test_the_group_runs_on_the_cpu_model():
    group = next(g for g in load_registry() if g.group == "binary_cpu")
    frame = run_groups((group,)).tables["comparison"]
    ran = frame[frame.status == "simulated"]
    assert set(ran.family) == {"cpu_simd"} and len(ran) == 9
    assert set(frame[frame.status != "simulated"].case) == {"lce_quicknet_rpi4", "lce_quicknet_pixel1"}
    convs = ran[ran.case.str.contains("bconv|bgemm")]
    assert (convs.relative_error < 0).all() and (convs.relative_error.abs() < 0.35).all()   # too fast, by < 35 %
