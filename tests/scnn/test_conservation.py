"""Conservation laws of the SCNN model (issue 5)."""
import dataclasses
import math

import numpy as np
import pytest

from accel_sim import load_arch, simulate
from accel_sim.compress import SCNNZeroRun
from accel_sim.energy import load_energy_table
from accel_sim.scnn.family import FAMILY
from accel_sim.scnn.plan import plan
from accel_sim.scnn.plan.operands import conv_operands
from accel_sim.scnn.plan.tiling import split_bounds
from accel_sim.workload import ConvLayer, Network
from tests.scnn._layers import chunked_case, small_case


def brute_force_products(arch, layer):
    """sum over (temporal tile, PE tile, channel, group) of nnz(activations) x nnz(weights), stride 1."""
    spec, tiling = arch.scnn, plan(arch, layer).tiling
    weights, inputs = conv_operands(layer)
    rows = split_bounds(layer.in_h, tiling.temporal_rows * spec.pe_rows)
    cols = split_bounds(layer.in_w, tiling.temporal_cols * spec.pe_cols)
    total = 0
    for g in range(layer.groups):
        for c in range(layer.in_channels // layer.groups):
            w_nnz = [np.count_nonzero(weights[g, k0:k0 + tiling.kc, c])
                     for k0 in range(0, layer.out_channels // layer.groups, tiling.kc)]
            for iy in range(rows.size - 1):
                for ix in range(cols.size - 1):
                    a_nnz = np.count_nonzero(inputs[0, g, c, rows[iy]:rows[iy + 1], cols[ix]:cols[ix + 1]])
                    total += a_nnz * sum(w_nnz)
    return total


def both_nonzero_macs(layer):
    weights, inputs = conv_operands(layer)
    p = layer.pad_top
    x = np.pad(inputs[0], ((0, 0), (0, 0), (p, p), (p, p))) != 0
    count = 0
    for g in range(layer.groups):
        for oy in range(layer.out_h):
            for ox in range(layer.out_w):
                win = x[g, :, oy * layer.stride_h:oy * layer.stride_h + layer.kernel_h,
                        ox * layer.stride_w:ox * layer.stride_w + layer.kernel_w]
                count += int(((weights[g] != 0) & win[None]).sum())
    return count


@pytest.mark.parametrize("seed", range(30))
def test_products_issued_are_the_cartesian_products(seed):
    arch, layer = small_case(seed, design="scnn")
    layer = ConvLayer(layer.name, in_h=layer.in_h, in_w=layer.in_w, in_channels=layer.in_channels,
                      out_channels=layer.out_channels, kernel_h=layer.kernel_h, kernel_w=layer.kernel_w,
                      pad_top=layer.pad_top, pad_bottom=layer.pad_bottom, pad_left=layer.pad_left,
                      pad_right=layer.pad_right, groups=layer.groups, weight_density=layer.weight_density,
                      input_density=layer.input_density)  # stride 1: no phase classes
    result = FAMILY.layer_result(arch, layer)
    assert result.metrics["products_issued"] == brute_force_products(arch, layer)
    assert result.macs_issued == both_nonzero_macs(layer)
    assert result.macs_issued + result.macs_skipped == result.macs_dense == layer.macs


def test_channel_chunks_change_no_product():
    """An FC / GEMM layer has one temporal tile whatever the IARAM: chunking its channels leaves the
    products, Kc and the useful MACs unchanged, and its loads make it no faster."""
    chunked_gemms = 0
    for seed in range(40):
        arch, layer = chunked_case(seed)
        if layer.kind != "gemm":
            continue
        roomy = load_arch("scnn", {f"scnn.{field.name}": getattr(arch.scnn, field.name)
                                   for field in dataclasses.fields(arch.scnn) if field.name != "iaram_size"})
        chunked, whole = FAMILY.layer_result(arch, layer), FAMILY.layer_result(roomy, layer)
        assert whole.metrics["channel_chunks"] == 1
        for metric in ("products_issued", "kc", "output_groups", "temporal_tiles"):
            assert chunked.metrics[metric] == whole.metrics[metric], (seed, metric)
        assert chunked.macs_issued == whole.macs_issued
        assert chunked.cycles >= whole.cycles, seed
        chunked_gemms += chunked.metrics["channel_chunks"] > 1
    assert chunked_gemms >= 10


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("generate", [small_case, chunked_case])
def test_cycle_bounds_and_traffic(seed, generate):
    arch, layer = generate(seed)
    result = FAMILY.layer_result(arch, layer)
    spec = arch.scnn
    products = result.metrics["products_issued"]
    assert result.cycles >= math.ceil(products / (spec.pes * spec.multipliers_per_pe))
    assert result.cycles >= result.macs_issued / result.peak_macs_per_cycle
    passes = result.metrics["temporal_tiles"] * result.metrics["channel_chunks"]   # each rounds up twice
    assert result.cycles >= (result.dram_read_bytes + result.dram_write_bytes) / spec.dram_bandwidth - 2 * passes
    assert result.metrics["bank_conflict_cycles"] >= 0
    assert 0 <= result.metrics["barrier_idle_fraction"] < 1
    if spec.design in ("dcnn", "dcnn_opt"):
        assert products == layer.macs
    weights, _ = conv_operands(layer)
    if spec.design == "scnn":   # DRAM moves at least the compressed weights, each block once per temporal tile
        # (a chunk's blocks in the chunk's pass)
        kc = int(result.metrics["kc"])
        bits = sum(SCNNZeroRun.from_dense(weights[g, k0:k0 + kc, c]).storage(arch.word_bits).total_bits
                   for g in range(weights.shape[0]) for c in range(weights.shape[2])
                   for k0 in range(0, weights.shape[1], kc))
        assert result.dram_read_bytes >= math.ceil(bits / 8)


def test_energy_is_the_sum_of_its_parts_and_runs_are_deterministic():
    arch = load_arch("scnn")
    layer = ConvLayer("c", in_h=20, in_w=20, in_channels=16, out_channels=32, kernel_h=3, kernel_w=3, pad_top=1,
                      pad_bottom=1, pad_left=1, pad_right=1, weight_density=0.4, input_density=0.5)
    network = Network("n", (layer,))
    run = simulate(arch, network)
    table = load_energy_table(arch.energy_table)
    energy = run.energy[0]
    assert energy.total_pj == pytest.approx(sum(table.energy_pj(a) for a in run.layers[0].actions))
    assert {"multipliers", "crossbar", "accumulator_banks", "iaram", "oaram", "weight_fifo", "halo_links",
            "ppu", "dram"} <= set(energy.by_component_pj)
    assert all(v >= 0 for v in energy.by_component_pj.values())
    assert simulate(arch, network).layers_frame().equals(run.layers_frame())
