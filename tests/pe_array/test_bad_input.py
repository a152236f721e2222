"""Bad configs and workloads give InputError naming the field and what was expected."""
import pytest

from accel_sim import load_arch
from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.foundations.workload import GemmLayer, NMSparsity


def test_unknown_support_level():
    with pytest.raises(InputError) as err:
        load_arch("pe_array", {"pe_array.sparsity_support": "magic"})
    assert "pe_array.sparsity_support" in str(err.value) and "reassignment" in str(err.value)


def test_reassignment_window_zero():
    with pytest.raises(InputError) as err:
        load_arch("pe_array", {"pe_array.reassign_window": 0})
    assert "pe_array.reassign_window" in str(err.value) and "> 0" in str(err.value)


def test_window_must_divide_rows():
    with pytest.raises(InputError, match="reassign_window 3 must divide pe_array.rows 16"):
        load_arch("pe_array", {"pe_array.reassign_window": 3})


def test_nm_bigger_than_m():
    with pytest.raises(InputError, match="nm_n 5 must be <= pe_array.nm_m 4"):
        load_arch("pe_array", {"pe_array.nm_n": 5})


def test_two_four_request_on_a_tensor_that_is_not_two_four_is_an_error_not_a_pruning():
    arch = load_arch("pe_array_skipping", {"pe_array.weight_format": "nm"})
    with pytest.raises(InputError) as err:
        simulate_layer(arch, GemmLayer("fc_unpruned", m=4, k=64, n=8, weight_density=0.5))
    message = str(err.value)
    assert "fc_unpruned" in message and "2:4" in message and "no automatic pruning" in message
    ok = simulate_layer(arch, GemmLayer("fc_24", m=4, k=64, n=8, weight_sparsity=NMSparsity(2, 4))).result
    assert ok.metrics["macs_skipped"] == 4 * 64 * 8 // 2


def test_decompressor_slower_than_the_array_is_refused():
    with pytest.raises(InputError, match="decompresses weights in front of the array"):
        load_arch("pe_array_memory", {"pe_array.csr_entries_per_cycle": 2})
    load_arch("pe_array_skipping", {"pe_array.csr_entries_per_cycle": 2})  # a skipping decoder may be the bottleneck
