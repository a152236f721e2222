"""Bad input gives InputError naming the file / layer / field and what was expected."""
import numpy as np
import pytest

from accel_sim import InputError, load_arch, simulate
from accel_sim.pipeline.simulate import simulate_layer as simulate_and_cost
from accel_sim.foundations.workload import GemmLayer, Network, NMSparsity
from accel_sim.foundations.workload.layer import OperandSource


def simulate_layer(arch, layer):
    return simulate_and_cost(arch, layer).result


@pytest.fixture(scope="module")
def arch():
    return load_arch("ampere_a100")


def _payload_layer(tmp_path, weights):
    path = tmp_path / "w.npz"
    np.savez(path, weights=weights.astype(np.float32))
    return GemmLayer("fc", m=4, k=weights.shape[0], n=weights.shape[1], weight_sparsity=NMSparsity(2, 4),
                     operands=OperandSource(payload=str(path)))


def test_two_four_request_on_weights_that_are_not_two_four_is_an_error(arch, tmp_path):
    layer = _payload_layer(tmp_path, np.ones((16, 8)))   # dense weights marked 2:4
    with pytest.raises(InputError) as err:
        simulate_layer(arch, layer)
    message = str(err.value)
    assert "w.npz" in message and "not 2:4 along K" in message and "no automatic pruning" in message


def test_given_weights_that_are_two_four_run_sparse(arch, tmp_path):
    weights = np.zeros((16, 8))
    weights[0::4] = 1.0
    weights[3::4] = -2.0
    result = simulate_layer(arch, _payload_layer(tmp_path, weights))
    assert result.metrics["sparse"] == 1.0 and result.macs_issued * 2 == result.macs_dense


@pytest.mark.parametrize("declared", [NMSparsity(3, 4), NMSparsity(4, 8), NMSparsity(2, 3)])
def test_declared_pattern_the_core_cannot_run_is_an_error(arch, declared):
    with pytest.raises(InputError, match=f"fc: weight_sparsity: {declared} weights are not guaranteed 2:4"):
        simulate(arch, Network("n", (GemmLayer("fc", m=8, k=64, n=8, weight_sparsity=declared),)))


def test_tf32_runs_one_two_and_refuses_two_four():
    arch = load_arch("ampere_a100", {"word_bits": 32, "tensor_core.dense_macs_per_cycle": 128,
                                     "tensor_core.mma_k": 8})
    ok = simulate_layer(arch, GemmLayer("a", m=64, k=128, n=64, weight_sparsity=NMSparsity(1, 2)))
    assert ok.metrics["sparse"] == 1.0 and ok.macs_issued * 2 == ok.macs_dense
    with pytest.raises(InputError, match="not guaranteed 1:2"):
        simulate_layer(arch, GemmLayer("b", m=64, k=128, n=64, weight_sparsity=NMSparsity(2, 4)))


def test_unstructured_sparsity_runs_dense(arch):
    result = simulate_layer(arch, GemmLayer("u", m=64, k=128, n=64, weight_density=0.5))
    assert result.metrics["sparse"] == 0.0 and result.macs_issued == result.macs_dense


def test_unsupported_word_width_is_an_error():
    arch = load_arch("ampere_a100", {"word_bits": 4})
    with pytest.raises(InputError, match="word_bits: the tensor core runs 8, 16, 32-bit words"):
        simulate_layer(arch, GemmLayer("g", m=8, k=8, n=8))


@pytest.mark.parametrize("overrides, expected", [
    ({"tensor_core.kernels": [{"m": 100, "n": 64, "k": 32, "warp_m": 64, "warp_n": 32}]},
     "tile m 100 is not a multiple of warp_m 64"),
    ({"tensor_core.kernels": [{"m": 64, "n": 64, "k": 32, "warp_m": 32, "warp_n": 4}]},
     "warp tile must be a multiple of the MMA shape 16x8"),
    ({"tensor_core.kernels": []}, "kernels needs at least one tile shape"),
    ({"tensor_core.sparse_kernels": [{"m": 64, "n": 64, "k": 64, "warp_m": 32, "warp_n": 4}]},
     "kernel 64x64x64/w32x4: warp tile must be a multiple of the MMA shape 16x8"),
    ({"tensor_core.nm_n": 4}, "N 4 must be smaller than M 4"),
    ({"tensor_core.sms": 0}, "tensor_core.sms: expected a value > 0"),
    ({"tensor_core.l2_bandwidth": "fast"}, "tensor_core.l2_bandwidth"),
    ({"tensor_core.warps": 4}, "tensor_core.warps: unknown field"),
])
def test_bad_config_fields(overrides, expected):
    with pytest.raises(InputError) as err:
        load_arch("ampere_a100", overrides)
    assert expected in str(err.value) and "ampere_a100.yaml" in str(err.value)


def test_no_kernel_fitting_shared_memory_is_an_error():
    arch = load_arch("ampere_a100", {"tensor_core.shared_memory_size": "1 KiB"})
    with pytest.raises(InputError, match="tensor_core: kernels: no kernel fits shared memory"):
        simulate_layer(arch, GemmLayer("g", m=8, k=8, n=8))


def test_no_sparse_kernel_fitting_shared_memory_names_the_sparse_list():
    # a dense layer still runs on `kernels`; the 2:4 one has only a sparse tile too big for shared memory
    big = {"m": 256, "n": 256, "k": 1024, "warp_m": 64, "warp_n": 64, "stages": 3}
    arch = load_arch("ampere_a100", {"tensor_core.sparse_kernels": [big]})
    assert simulate_layer(arch, GemmLayer("g", m=8, k=8, n=8)).cycles > 0
    with pytest.raises(InputError, match="tensor_core: sparse_kernels: no kernel fits shared memory"):
        simulate_layer(arch, GemmLayer("g", m=8, k=8, n=8, weight_sparsity=NMSparsity(2, 4)))
