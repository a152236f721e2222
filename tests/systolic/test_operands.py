"""Operand addresses, fetch order and demand order (checked against SCALE-Sim's constructions)."""
import numpy as np

from accel_sim.models.systolic.fast.demand import first_demand_line
from accel_sim.models.systolic.plan import operands
from accel_sim.models.systolic.plan.mapping import map_layer
from accel_sim.models.systolic.reference.demand import skew
from accel_sim.models.systolic.spec import BufferSpec, SystolicSpec
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, NMSparsity

BUFFER = BufferSpec(size=1024)


def spec(rows, cols, dataflow, nm=False):
    return SystolicSpec(rows=rows, cols=cols, dataflow=dataflow, ifmap_sram=BUFFER, filter_sram=BUFFER,
                        ofmap_sram=BUFFER, nm_sparsity=nm)


def test_skew_delays_column_q_by_q_cycles():
    assert skew(np.array([[1, 2], [3, 4]])).tolist() == [[1, -1], [3, 2], [-1, 4]]


def test_diagonal_order_is_the_anti_diagonal_sort_of_the_cells():
    """Closed form against its definition: cells sorted by diagonal i + q, then column q."""
    for rows in range(7):
        for cols in range(7):
            i, q = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
            order = np.lexsort((q.ravel(), (i + q).ravel()))
            got = operands.diagonal_order.__wrapped__(rows, cols)
            assert [a.tolist() for a in got] == [i.ravel()[order].tolist(), q.ravel()[order].tolist()]


def test_fetch_sequence_rolls_streamed_blocks_out_along_anti_diagonals():
    """WS ifmap of a 3x2 GEMM input on 2 rows: one 3x2 block, read diagonal by diagonal,
    top-right to bottom-left within a diagonal (SCALE-Sim create_ifmap_prefetch_mat)."""
    layer = GemmLayer("g", m=3, k=2, n=1)
    m = map_layer(spec(2, 2, "ws"), layer)
    mats = operands.operand_matrices(m, layer)
    assert mats.ifmap.tolist() == [[0, 1], [2, 3], [4, 5]]
    assert operands.fetch_sequence(m, mats, "ifmap").tolist() == [0, 2, 1, 4, 3, 5]
    assert operands.fetch_sequence(m, mats, "filter").tolist() == [0, -1, 1, -1]  # preloaded: row-major, padded


def test_ifmap_addresses_with_padding_and_stride():
    layer = ConvLayer("c", in_h=3, in_w=3, in_channels=1, out_channels=1, kernel_h=2, kernel_w=2,
                      stride_h=2, stride_w=2, pad_top=1, pad_left=1)
    m = map_layer(spec(2, 2, "os"), layer)
    ifmap = operands.operand_matrices(m, layer).ifmap
    assert ifmap.shape == (4, 4)  # 2x2 outputs, 2x2 window
    assert ifmap[0].tolist() == [-1, -1, -1, 0]   # window at (-1, -1): only its bottom-right is inside
    assert ifmap[3].tolist() == [4, 5, 7, 8]      # window at (1, 1)


def test_nm_drops_pruned_reduction_indices_from_both_operands():
    layer = GemmLayer("g", m=2, k=8, n=3, weight_sparsity=NMSparsity(1, 4))
    m = map_layer(spec(4, 4, "ws", nm=True), layer)
    mats = operands.operand_matrices(m, layer)
    assert mats.ifmap.tolist() == [[0, 4], [8, 12]]
    assert mats.filter.tolist() == [[0, 8, 16], [4, 12, 20]]


def test_first_demand_line():
    layer = GemmLayer("g", m=5, k=3, n=2)
    m = map_layer(spec(4, 4, "ws"), layer)
    mats = operands.operand_matrices(m, layer)
    assert first_demand_line(m, mats, "filter") == 1   # 3 of 4 rows used, last row first
    assert first_demand_line(m, mats, "ifmap") == 4    # after the R-cycle preload
