"""The max_cycles guard and the closed-form input footprint."""
import pytest

from accel_sim.foundations.errors import SimulationError
from accel_sim.models.systolic.family import FAMILY
from accel_sim.models.systolic.fast.footprint import touched_input_words
from accel_sim.models.systolic.plan.mapping import map_layer
from accel_sim.models.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, NMSparsity
from tests.systolic._scalesim_files import CASES_DIR, load_case


def test_max_cycles_guard_raises_instead_of_running_on():
    case = load_case(CASES_DIR / "golden_ws")
    layer = case.layers[0]
    with pytest.raises(SimulationError, match="max_cycles"):
        FAMILY.layer_result(case.arch, layer, max_cycles=1000)
    small = GemmLayer("g", m=40, k=20, n=20)
    with pytest.raises(SimulationError, match="max_cycles"):
        FAMILY.layer_result(case.arch, small, reference=True, max_cycles=50)


def test_touched_input_words_skips_strided_gaps_and_pruned_channels():
    buffer = BufferSpec(size=1024)
    ws = SystolicSpec(rows=4, cols=4, dataflow="ws", ifmap_sram=buffer, filter_sram=buffer, ofmap_sram=buffer,
                      nm_sparsity=True)
    strided = ConvLayer("s", in_h=8, in_w=8, in_channels=4, out_channels=2, kernel_h=1, kernel_w=1,
                        stride_h=2, stride_w=2)
    assert touched_input_words(map_layer(ws, strided), strided) == 4 * 4 * 4
    pruned = ConvLayer("p", in_h=8, in_w=8, in_channels=4, out_channels=2, kernel_h=1, kernel_w=1,
                       weight_sparsity=NMSparsity(2, 4))
    assert touched_input_words(map_layer(ws, pruned), pruned) == 8 * 8 * 2
    padded = ConvLayer("q", in_h=4, in_w=4, in_channels=1, out_channels=1, kernel_h=3, kernel_w=3,
                       pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, weight_sparsity=NMSparsity(1, 9))
    assert touched_input_words(map_layer(ws, padded), padded) == 3 * 3  # only offset (0, 0) is kept
