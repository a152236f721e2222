"""The binary_cpu group on the CPU SIMD model's NEON cores: the kernel arithmetic by hand, every constant the
model reads for a CPU preset listed with its value (measured_hardware/constants/binary_cpu.yaml), and the
group's cases simulated through the silicon-validation study."""
import math

import pytest
import yaml

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.measured import MEASURED_DIR, RunRef, load_registry
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.studies.silicon_validation import run_groups
from accel_sim.systems.cpu_simd import gemm
from accel_sim.systems.cpu_simd.elementwise import PASSES, pass_time
from accel_sim.systems.cpu_simd.gemm import binary_gemm, binary_word_bits, binary_word_cycles, fp32_gemm
from accel_sim.systems.cpu_simd.measured import passes_cycles, run_seconds
from accel_sim.systems.cpu_simd.spec import PIXEL1_KRYO, RPI4_CORTEX_A72

CONSTANTS = yaml.safe_load((MEASURED_DIR / "constants" / "binary_cpu.yaml").read_text())["configs"]
KERNEL_CONSTANTS = {"neon_direct_ops": gemm.NEON_DIRECT_OPS, "neon_bgemm_ops": gemm.NEON_BGEMM_OPS}
KERNEL_CONSTANTS.update({f"pass_{name}": [c.simd_ops, c.loads, c.instructions, c.bytes_per_element, c.per_value]
                         for name, c in PASSES.items()})


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
            assert entries[name]["value"] == value, name


def test_every_pass_is_listed_with_its_counts():
    assert {f"pass_{name}" for name in PASSES} <= set(CONSTANTS["pixel1_kryo"])


def test_the_group_runs_on_the_cpu_model():
    group = next(g for g in load_registry() if g.group == "binary_cpu")
    frame = run_groups((group,)).tables["comparison"]
    ran = frame[frame.status == "simulated"]
    assert set(ran.family) == {"cpu_simd"} and len(ran) == len(frame) == 11
    convs = ran[ran.case.str.contains("bconv|bgemm")]
    assert (convs.relative_error < 0).all() and (convs.relative_error.abs() < 0.35).all()   # too fast, by < 35 %


def test_one_layers_element_wise_passes_by_hand():
    """Bi-Real Net's layer1 3x3 conv on the Pixel 1: 56 x 56 x 64 = 200704 fp32 values in and out, 50176 vectors of
    4. Batch norm (daBNN Affine: loads of x, a, b; FMLA; store) is bound by the one load port: 3 cycles a vector;
    the shortcut add (two loads) 2 cycles a vector but its 12 bytes a value from DRAM take longer; the sign packing
    (one Q load a vector) 1 cycle a vector."""
    values, vectors = 56 * 56 * 64, 56 * 56 * 64 // 4
    dram = PIXEL1_KRYO.clock / PIXEL1_KRYO.dram_bandwidth                 # cycles per byte
    bn = pass_time(PIXEL1_KRYO, "batch_norm", values, threads=1)
    assert bn.compute_cycles == vectors * 3 and bn.memory_cycles == pytest.approx(values * 8 * dram)
    assert bn.cycles == bn.compute_cycles
    add = pass_time(PIXEL1_KRYO, "shortcut_add", values, threads=1)
    assert add.compute_cycles == vectors * 2 and add.memory_cycles == pytest.approx(values * 12 * dram)
    assert add.cycles == add.memory_cycles > add.compute_cycles
    pack = pass_time(PIXEL1_KRYO, "sign_pack", values, threads=1)
    assert pack.compute_cycles == vectors * 1 and pack.memory_cycles == pytest.approx(values * 4.125 * dram)
    layer = next(l for l in load_workload("resnet18").layers if l.name == "layer1_0_conv1")
    passes = ("sign_pack", "batch_norm", "shortcut_add")
    assert passes_cycles(PIXEL1_KRYO, layer, passes, 1) == pytest.approx(bn.cycles + add.cycles + pack.cycles)


@pytest.mark.parametrize("cpu", [RPI4_CORTEX_A72, PIXEL1_KRYO], ids=lambda c: c.name)
@pytest.mark.parametrize("name", sorted(PASSES))
def test_a_pass_takes_at_least_each_bound(cpu, name):
    """Conservation: a pass is no faster than its ASIMD ops over the pipes, its loads over the load ports, its
    instructions over the issue width, nor its compulsory bytes over the DRAM bandwidth."""
    cost, values = PASSES[name], 28 * 28 * 128
    time = pass_time(cpu, name, values, threads=1)
    vectors = values / cpu.fp_lanes
    for bound in (vectors * cost.simd_ops / cpu.simd_pipes, vectors * cost.loads / cpu.load_ports,
                  vectors * cost.instructions / cpu.issue_width,
                  values * cost.bytes_per_element / cpu.dram_bandwidth * cpu.clock):
        assert time.cycles >= bound * (1 - 1e-12)
    every_core = pass_time(cpu, name, values)            # threads split the compute, not the DRAM bandwidth
    assert every_core.compute_cycles == pytest.approx(time.compute_cycles / cpu.cores)
    assert every_core.memory_cycles == time.memory_cycles


def test_the_passes_add_to_the_network_and_only_there():
    """Bi-Real Net with daBNN's passes is the kernels alone plus every convolution's passes; an unknown pass is
    one input error naming the field."""
    bare = {"threads": 1, "kernel": "direct", "full_precision_layers": ["conv1", "fc"]}
    run = RunRef(device="pixel1_kryo", workload="resnet18")
    with_passes = dict(bare, binary_layer_passes=["sign_pack", "batch_norm", "shortcut_add"],
                       fp32_layer_passes=["batch_norm"])
    layers = load_workload("resnet18").layers
    extra = sum(passes_cycles(PIXEL1_KRYO, layer, ("batch_norm",) if layer.name in ("conv1", "fc") else
                              ("sign_pack", "batch_norm", "shortcut_add"), 1) for layer in layers)
    assert run_seconds(run, with_passes) == pytest.approx(run_seconds(run, bare) + extra / PIXEL1_KRYO.clock)
    assert extra > 0
    with pytest.raises(InputError, match="binary_layer_passes"):
        run_seconds(run, dict(bare, binary_layer_passes=["relu"]))


def test_pools_next_to_named_layers_by_hand():
    """The stem's 3 x 3 stride-2 max pool of conv1's 112 x 112 x 64 output makes 56 x 56 x 64 values, 50176 vectors,
    each 29 instructions (daBNN maxpool3x3) over 3 issued a cycle; a layer_passes entry naming no layer is an
    input error."""
    conv1 = load_workload("resnet18").layers[0]
    pool = passes_cycles(PIXEL1_KRYO, conv1, ("max_pool_3x3_s2",), 1)
    assert pool == pytest.approx(56 * 56 * 64 / 4 * 29 / 3)
    run = RunRef(device="pixel1_kryo", workload="resnet18")
    bare = {"threads": 1, "full_precision_layers": ["conv1", "fc"]}
    pooled = dict(bare, layer_passes={"conv1": ["max_pool_3x3_s2"]})
    assert run_seconds(run, pooled) == pytest.approx(run_seconds(run, bare) + pool / PIXEL1_KRYO.clock)
    with pytest.raises(InputError, match="layer_passes"):
        run_seconds(run, dict(bare, layer_passes={"conv9": ["max_pool_3x3_s2"]}))
    with pytest.raises(InputError, match="layer_passes.conv1"):
        run_seconds(run, dict(bare, layer_passes={"conv1": ["min_pool"]}))


def test_quicknet_shapes_from_larq_zoo():
    """larq_zoo/sota/quicknet.py (commit 3783cfb): a 3x3 stride-2 conv to 8 channels and a depthwise 3x3 stride-2
    with depth multiplier 8 (224 -> 112 -> 56, 64 channels); sections of 2 / 3 / 4 / 4 blocks at 64 / 128 / 256 /
    512 filters, each later section opening with a stride-2 transition on its input's channels; a 1000-way
    classifier. Binary MACs: ten 3x3 convs of 115.6 M (56^2 x 576 x 64 = 28^2 x 1152 x 128 = ...) and three
    transitions of 28.9 M."""
    net = load_workload("measured/quicknet")
    binary = [layer for layer in net.layers if layer.precision == "binary"]
    assert len(net.layers) == 16 and len(binary) == 13
    assert sum(layer.gemm().m * layer.gemm().k * layer.gemm().n for layer in binary) == \
        10 * 56 * 56 * 576 * 64 + 3 * 28 * 28 * 576 * 64
    assert [layer.out_h for layer in binary if "transition" in layer.name] == [28, 14, 7]
    stem_dw = net.layers[1]
    assert (stem_dw.groups, stem_dw.out_channels, stem_dw.out_h) == (8, 64, 56)
    assert sum(layer.out_channels for layer in binary if "transition" in layer.name) * 2 == 128 + 256 + 512
