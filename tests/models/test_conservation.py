"""Conservation laws that every model's results obey, on every shipped arch and generated layers."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim import load_arch, simulate
from accel_sim.foundations.config.loader import ARCH_DIR
from accel_sim.foundations.energy import load_energy_table
from accel_sim.foundations.workload import ConvLayer, GemmLayer, Network, NMSparsity
from accel_sim.foundations.workload.operands import layer_operands
from accel_sim.models.systolic.plan.block_scaling import block_scaling
from accel_sim.pipeline.simulate import energy_factor

MATRIX_VECTOR_ONLY = ("eie",)  # families that refuse convolutions (EIE runs FC / LSTM layers)
CONV_ONLY_KERNELS = ("sparsert_conv",)   # simt kernels that refuse GEMM / FC layers (SparseRT's 3x3 code generator)
SMALL_ARCH_OVERRIDES = {"systolic.rows": 8, "systolic.cols": 8}


def touched(size, kernel, stride, pad, outputs):
    """Input rows (or columns) some window reads: a strided 1x1 conv skips the others."""
    rows = set()
    for o in range(outputs):
        rows.update(range(max(0, o * stride - pad), min(size, o * stride - pad + kernel)))
    return len(rows)


def footprint_bytes(layer, word_bytes):
    """Bytes each operand occupies once: inputs that some window reads and weights, outputs written."""
    nm = layer.weight_sparsity.density if layer.weight_sparsity else 1.0
    inputs = layer.input_elements
    if layer.kind == "conv":
        inputs = (touched(layer.in_h, layer.kernel_h, layer.stride_h, layer.pad_top, layer.out_h)
                  * touched(layer.in_w, layer.kernel_w, layer.stride_w, layer.pad_left, layer.out_w)
                  * layer.in_channels * layer.batch)
    return (inputs * word_bytes, math.ceil(layer.weight_elements * nm) * word_bytes,
            layer.output_elements * word_bytes)


def check_laws(arch, network, run):
    table = load_energy_table(arch.energy_table)
    for layer, result, energy in zip(network.layers, run.layers, run.energy):
        assert result.cycles == result.compute_cycles + result.stall_cycles
        if layer.kind == "vector":   # softmax, norms, ...: no MACs, the vector unit's own laws (tests/vector_unit)
            assert result.macs_dense == result.macs_issued == 0
            continue
        assert result.macs_issued + result.macs_skipped == result.macs_dense == layer.macs
        assert result.cycles >= math.ceil(result.macs_issued / result.peak_macs_per_cycle)
        if arch.family == "systolic":
            ifmap, weights, ofmap = footprint_bytes(layer, arch.word_bytes)
            scaling = block_scaling(arch.systolic, layer, arch.word_bits)
            if scaling is not None:   # narrow elements cross DRAM packed: their footprint at the element width
                ifmap, weights, _ = footprint_bytes(layer, scaling.element_bits / 8)
            if arch.systolic.nm_sparsity and layer.weight_sparsity:
                ifmap = 0  # inputs meeting only pruned weights are never fetched: no simple bound
            assert result.dram_read_bytes >= ifmap + weights
            assert result.dram_write_bytes >= ofmap
        else:
            # Compressed families keep their own exact footprint laws (tests/<family>); common to all:
            # every non-zero weight is read at least once from some level, at >= 1 bit each.
            nonzero_weights = int(np.count_nonzero(layer_operands(layer).weights))
            assert result.dram_read_bytes + result.sram_read_bytes >= nonzero_weights / 8
        # at the arch's node: the table's energies scaled from the table's own node (1.0 at the same node), plus
        # the blocks no action counts (uncounted_blocks), each at its share of the chip: share / (1 - sum) x on chip
        factor = energy_factor(arch, table)
        counted = factor * sum(table.energy_pj(a) for a in result.actions)
        on_chip = counted - factor * sum(table.energy_pj(a) for a in result.actions if a.component == "dram")
        rest = 1 - sum(b.share for b in arch.uncounted_blocks)
        for block in arch.uncounted_blocks:
            assert energy.by_component_pj[block.block] == pytest.approx(block.share / rest * on_chip)
        assert energy.total_pj == pytest.approx(counted + (1 / rest - 1) * on_chip)
        assert energy.total_pj == pytest.approx(sum(energy.by_component_pj.values()))
        assert 0 < result.utilization <= 1
    layers, summary = run.layers_frame(), run.summary_frame()
    for column in ("cycles", "energy_pj", "dram_read_bytes", "macs_issued"):
        assert summary[column].iloc[0] == pytest.approx(layers[column].sum())


layer_strategy = st.one_of(
    st.builds(lambda h, c, k, r, s, nm: ConvLayer("conv", in_h=h, in_w=h, in_channels=c, out_channels=k,
                                                   kernel_h=r, kernel_w=r, stride_h=s, stride_w=s, weight_sparsity=nm),
              st.integers(5, 14), st.integers(1, 12), st.integers(1, 20), st.integers(1, 3), st.integers(1, 2),
              st.sampled_from([None, NMSparsity(2, 4), NMSparsity(1, 4)])),
    st.builds(lambda m, k, n: GemmLayer("gemm", m=m, k=k, n=n), st.integers(1, 40), st.integers(1, 40), st.integers(1, 40)),
)


@settings(max_examples=40, deadline=None)
@given(layer=layer_strategy, dataflow=st.sampled_from(["os", "ws", "is"]), mode=st.sampled_from(["calc", "user"]),
       nm=st.booleans())
def test_conservation_on_generated_layers(layer, dataflow, mode, nm):
    overrides = dict(SMALL_ARCH_OVERRIDES, **{"systolic.dataflow": dataflow, "dram.bandwidth_mode": mode,
                                              "systolic.nm_sparsity": nm and dataflow == "ws"})
    arch = load_arch("scalesim_32x32_ws", overrides)
    network = Network("n", (layer,))
    check_laws(arch, network, simulate(arch, network))


@pytest.mark.parametrize("path", sorted(ARCH_DIR.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_arch_runs_with_conservation(path):
    arch = load_arch(path)
    block_scaled = arch.family == "tensor_core" and arch.tensor_core.block_format != "none"
    # a block-scaled format's block (16 or 32) must divide K = channels x 9, and it runs on the dense path
    conv = ConvLayer("c", in_h=12, in_w=12, in_channels=32 if block_scaled else 8, out_channels=16, kernel_h=3,
                     kernel_w=3, pad_top=1, pad_bottom=1, pad_left=1, pad_right=1,
                     weight_sparsity=None if block_scaled else NMSparsity(2, 4))
    fc = GemmLayer("fc", m=1, k=256, n=10, weight_density=0.3, input_density=0.5)
    conv_only = arch.family == "simt" and arch.simt.kernel in CONV_ONLY_KERNELS
    network = Network("tiny", (fc,) if arch.family in MATRIX_VECTOR_ONLY else (conv,) if conv_only else (conv, fc))
    check_laws(arch, network, simulate(arch, network))


def test_same_inputs_same_result_bit_for_bit():
    arch = load_arch("scalesim_32x32_ws")
    network = Network("n", (GemmLayer("g", m=64, k=96, n=40),))
    first, second = simulate(arch, network).layers_frame(), simulate(arch, network).layers_frame()
    assert first.equals(second)
