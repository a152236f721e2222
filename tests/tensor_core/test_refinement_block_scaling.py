"""Block-scaled (MX / NVFP4) operands on the tensor core: the Blackwell-class bar (MXFP4 GEMM
throughput over FP16 = the datasheet's 9 / 2.25 PFLOPS), scale bytes in DRAM and SRAM traffic,
narrow-multiplier energy, fast == reference on every counter, and bad input (a block that does not
divide K, an unknown format) in one line, exit 2."""
from __future__ import annotations

import dataclasses

import pytest

from accel_sim import load_arch
from accel_sim.foundations.contract import counter_differences
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload import ConvLayer, GemmLayer
from accel_sim.models.tensor_core.family import FAMILY
from accel_sim.models.tensor_core.spec import KernelTile
from accel_sim.pipeline.simulate import simulate_layer
from tests.cli.cli_helpers import assert_one_line_error, run_cli

DATASHEET_FP4_OVER_FP16 = 9 / 2.25      # HGX B200 specifications: dense FP4 9 PFLOPS, FP16 2.25 PFLOPS
DATASHEET_FP8_OVER_FP16 = 4.5 / 2.25


def b200(block_format="none", **tensor_core):
    arch = load_arch("blackwell_b200", {"tensor_core.block_format": block_format})
    return dataclasses.replace(arch, tensor_core=dataclasses.replace(arch.tensor_core, **tensor_core))


def run(arch, layer):
    return simulate_layer(arch, layer, load_energy_table(arch.energy_table))


def test_mxfp4_gemm_throughput_ratio_is_the_datasheets():
    gemm = GemmLayer("gemm", m=8192, k=8192, n=8192)
    fp16, mxfp4 = run(load_arch("blackwell_b200"), gemm).result, run(load_arch("blackwell_b200_mxfp4"), gemm).result
    assert mxfp4.peak_macs_per_cycle / fp16.peak_macs_per_cycle == DATASHEET_FP4_OVER_FP16
    assert fp16.metrics["bound_math"] == mxfp4.metrics["bound_math"] == 1.0
    # the tensor cores' busy time scales by the datasheet ratio exactly; end to end the per-wave pipeline fill
    # (memory latency) and the FP16 C epilogue do not shrink with the operands
    assert fp16.metrics["math_busy_cycles"] / mxfp4.metrics["math_busy_cycles"] == DATASHEET_FP4_OVER_FP16
    assert fp16.cycles / mxfp4.cycles == pytest.approx(DATASHEET_FP4_OVER_FP16, rel=0.05)


def test_mxfp8_rate_and_scale_bytes_in_dram():
    gemm = GemmLayer("gemm", m=512, k=1024, n=768)
    fp16, mx = run(b200(), gemm).result, run(b200("mxfp8_e4m3"), gemm).result
    assert fp16.metrics["math_busy_cycles"] / mx.metrics["math_busy_cycles"] == DATASHEET_FP8_OVER_FP16
    # L2-resident: A (768 x 1024) and B (1024 x 512) read once; one byte of scale per 32 elements
    elements = 768 * 1024 + 1024 * 512
    assert mx.metrics["dram_scale_bytes"] == elements // 32
    assert mx.dram_read_bytes == elements + elements // 32
    assert fp16.dram_read_bytes == 2 * elements and "dram_scale_bytes" not in fp16.metrics
    assert mx.dram_write_bytes == fp16.dram_write_bytes == 768 * 512 * 2      # C stays FP16


def test_scale_actions_at_every_level_and_the_scale_unit():
    gemm = GemmLayer("gemm", m=256, k=512, n=256)
    for fmt, combine in (("mxfp4", "add_int"), ("nvfp4", "mult_fp")):
        result = run(b200(fmt), gemm).result
        actions = {(a.component, a.component_class, a.action, a.bits): a.count for a in result.actions}
        assert all(type(count) is int for count in actions.values())     # counts, never floats
        assert actions[("dram", "dram", "read", 8)] == (256 * 512 + 512 * 256) // result.metrics["block_size"]
        for level in ("l2", "shared_memory"):
            assert actions[(level, "sram", "read", 8)] > 0
        mults = actions[("tensor_core", "mult_fp", "op", 4)]
        applied = actions[("scale_unit", combine, "op", 8)]
        assert applied * result.metrics["block_size"] == mults      # one scale application per block of K
        assert actions[("scale_unit", "shift", "op", 32)] == applied


def test_narrow_multipliers_cost_less_energy_per_mac():
    gemm = GemmLayer("gemm", m=256, k=512, n=256)
    energy = {fmt: run(b200(fmt), gemm).energy.by_component_pj["tensor_core"] for fmt in ("none", "mxfp8_e4m3", "mxfp4")}
    assert energy["mxfp4"] < energy["mxfp8_e4m3"] < energy["none"]


def test_mxint8_runs_on_integer_multipliers():
    result = run(b200("mxint8"), GemmLayer("gemm", m=64, k=256, n=64)).result
    assert {a.component_class for a in result.actions if a.component == "tensor_core"} == {"mult_int", "add_int"}


SMALL_TILES = (KernelTile(64, 64, 64, 32, 32, 2), KernelTile(64, 8, 128, 16, 8), KernelTile(32, 16, 64, 16, 8))


@pytest.mark.parametrize("fmt, block", [("mxfp4", 0), ("nvfp4", 0), ("mxfp8_e5m2", 0), ("mxfp6_e3m2", 0),
                                        ("mxint8", 0), ("mxfp8_e4m3", 64), ("mxfp4", 16)])
@pytest.mark.parametrize("layer", [GemmLayer("g", m=40, k=256, n=72), GemmLayer("g1", m=1, k=128, n=24),
                                   ConvLayer("c", in_h=5, in_w=5, in_channels=64, out_channels=10, kernel_h=1,
                                             kernel_w=1, batch=2)])
def test_fast_and_reference_agree(fmt, block, layer):
    arch = b200(fmt, block_size=block, sms=3, kernels=SMALL_TILES, l2_size=64 * 1024, dram_bandwidth=40.0,
                shared_memory_bandwidth=64.0, register_file_bandwidth=100.0)
    plan = FAMILY.plan(arch, layer)
    assert counter_differences(FAMILY.fast(plan, None), FAMILY.reference(plan, None)) == []


def test_block_that_does_not_divide_k_is_refused():
    with pytest.raises(InputError, match="block_size 32 .* must divide the layer's reduction length, got k = 100"):
        FAMILY.plan(b200("mxfp4"), GemmLayer("g", m=8, k=100, n=8))


def test_cli_bad_block_size_and_unknown_format(tmp_path, capsys):
    workload = tmp_path / "w.yaml"
    workload.write_text("name: t\nlayers:\n  - {name: fc1, type: fc, in_features: 100, out_features: 8}\n")
    assert_one_line_error(run_cli(capsys, "run", "--arch", "blackwell_b200_mxfp4", "--workload", workload),
                          "fc1", "block_size 32", "k = 100")
    arch = tmp_path / "a.yaml"
    arch.write_text("extends: blackwell_b200\nname: bad\ntensor_core:\n  block_format: mxfp3\n")
    assert_one_line_error(run_cli(capsys, "run", "--arch", arch, "--workload", workload), "block_format", "mxfp3")
