"""simulate_many: several archs over one workload, layer by layer, sharing plan pieces through the run's
BatchMemo, gives what simulate gives for each arch alone (every layer's result, energy and static energy)."""
import numpy as np

from accel_sim.foundations.contract import BatchMemo
from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.simulate import simulate, simulate_many
from accel_sim.studies.scnn_common import conv_network, scnn_variant


def test_a_batch_gives_each_arch_what_simulate_gives_it_alone():
    network = conv_network("googlenet", 3)
    archs = (load_arch("scnn"), load_arch("dcnn_opt"), scnn_variant({"bank_mapping": "channel_spread"}),
             load_arch("scnn_sparse_a"), load_arch("scnn"))
    batch = simulate_many(archs, network)
    assert len(batch) == len(archs)
    for arch, run in zip(archs, batch):
        alone = simulate(arch, network)
        assert run.arch == arch
        assert run.layers == alone.layers and run.energy == alone.energy and run.static == alone.static


def test_the_memo_holds_one_layer_and_makes_its_arrays_read_only():
    first, second = conv_network("alexnet", 2).layers
    memo, calls = BatchMemo(), []

    def compute():
        calls.append(1)
        return np.zeros(3)

    value = memo.get(first, "zeros", compute)
    assert memo.get(first, "zeros", compute) is value and len(calls) == 1
    assert not value.flags.writeable
    memo.get(second, "zeros", compute)          # another layer: the first layer's pieces are dropped
    memo.get(first, "zeros", compute)
    assert len(calls) == 3
