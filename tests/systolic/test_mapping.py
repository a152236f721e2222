"""Folding a GEMM onto the array: spatial / temporal dimensions, folds, cycles per fold, N:M."""
import pytest

from accel_sim.models.systolic.plan.mapping import effective_reduction, kept_reduction_indices, map_layer
from accel_sim.models.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, NMSparsity

BUFFER = BufferSpec(size=64 * 1024)


def spec(rows, cols, dataflow, nm=False):
    return SystolicSpec(rows=rows, cols=cols, dataflow=dataflow, ifmap_sram=BUFFER, filter_sram=BUFFER,
                        ofmap_sram=BUFFER, nm_sparsity=nm)


GEMM = GemmLayer("g", m=256, k=256, n=128)  # SCALE-Sim's test_mnk_input.csv: M=256, N=128, K=256


@pytest.mark.parametrize(("dataflow", "sr", "sc", "t", "fold_lines"), [
    ("os", 256, 128, 256, 256 + 32 + 32 - 2),           # T + R + C - 2
    ("ws", 256, 128, 256, 2 * 32 + 32 + 256 - 2),       # 2R + C + T - 2
    ("is", 256, 256, 128, 2 * 32 + 32 + 128 - 2),
])
def test_spatial_and_temporal_dimensions(dataflow, sr, sc, t, fold_lines):
    m = map_layer(spec(32, 32, dataflow), GEMM)
    assert (m.sr, m.sc, m.t) == (sr, sc, t)
    assert m.fold_lines == fold_lines
    assert m.folds == -(-sr // 32) * -(-sc // 32)
    assert m.group_compute_cycles == m.folds * fold_lines - 1


def test_golden_ws_compute_cycles():
    m = map_layer(spec(32, 32, "ws"), GEMM)
    assert (m.row_folds, m.col_folds, m.group_compute_cycles) == (8, 4, 11199)  # SCALE-Sim: 52447 - 41248


def test_resnet18_conv1_output_stationary():
    """224x224x3, 7x7, stride 2, SCALE-Sim's ceil output (110x110): 95 row folds x 401 cycles - 1."""
    conv1 = ConvLayer("Conv1", in_h=224, in_w=224, in_channels=3, out_channels=64, kernel_h=7, kernel_w=7,
                      stride_h=2, stride_w=2, pad_bottom=1, pad_right=1)
    m = map_layer(spec(128, 128, "os"), conv1)
    assert (m.sr, m.sc, m.t) == (12100, 64, 147)
    assert m.group_compute_cycles == 38094
    assert m.mapping_efficiency == pytest.approx(0.4975328947368421)


def test_partial_folds_and_utilisation():
    m = map_layer(spec(8, 16, "os"), GemmLayer("g", m=20, k=5, n=20))
    assert (m.row_folds, m.col_folds) == (3, 2)
    assert [m.used_rows(i) for i in range(3)] == [8, 8, 4]
    assert [m.used_cols(i) for i in range(2)] == [16, 4]
    assert m.mapping_efficiency == pytest.approx(20 * 20 / (8 * 16 * 6))
    assert m.compute_utilization == pytest.approx(20 * 20 * 5 / (8 * 16 * m.fold_lines * 6))


def test_weight_and_input_stationary_count_the_drain_twice_in_utilisation():
    ws = map_layer(spec(8, 8, "ws"), GemmLayer("g", m=10, k=8, n=8))
    assert ws.utilization_cycles_per_fold == ws.fold_lines + 8 - 1


@pytest.mark.parametrize(("k", "nm", "expected"), [
    (147, NMSparsity(2, 4), 74),   # 36 blocks of 2 + min(2, 3)
    (10, NMSparsity(1, 4), 3),
    (3, NMSparsity(3, 4), 3),
    (576, NMSparsity(1, 1), 576),
    (9, None, 9),
])
def test_effective_reduction(k, nm, expected):
    assert effective_reduction(k, nm) == expected
    assert len(kept_reduction_indices(k, nm)) == expected


def test_nm_only_when_the_array_supports_it():
    layer = GemmLayer("g", m=4, k=16, n=4, weight_sparsity=NMSparsity(2, 4))
    assert map_layer(spec(4, 4, "ws", nm=True), layer).gemm.k == 8
    assert map_layer(spec(4, 4, "ws", nm=False), layer).gemm.k == 16
    assert list(kept_reduction_indices(8, NMSparsity(2, 4))) == [0, 1, 4, 5]


def test_groups_map_one_group():
    depthwise = ConvLayer("dw", in_h=8, in_w=8, in_channels=6, out_channels=6, kernel_h=3, kernel_w=3, groups=6)
    m = map_layer(spec(4, 4, "ws"), depthwise)
    assert (m.gemm.m, m.gemm.k, m.gemm.n, m.groups) == (36, 9, 1, 6)
