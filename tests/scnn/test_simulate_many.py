"""simulate_many: several archs over one workload, layer by layer, sharing plan pieces through the run's
BatchMemo, gives what simulate gives for each arch alone (every layer's result, energy and static energy)."""
import numpy as np
import pytest

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


def test_archs_differing_in_what_the_pes_or_vectors_do_not_read_share_and_match_alone():
    """The PE work, operand vectors, the activations' pieces and encodings are keyed by the settings they read
    (plan/keys.py): variants that differ only in the others share them in a batch, and each still gets what it
    gets alone."""
    network = conv_network("alexnet", 2)
    archs = (load_arch("scnn"), scnn_variant({"dram": "ignored"}), scnn_variant({"halo_charge": "largest_region_serial"}),
             scnn_variant({"scatter": "serialise"}), scnn_variant({"scatter": "fifo", "scatter_fifo_depth": 16}),
             scnn_variant({"barrier": "group_channel"}), scnn_variant({"index_bits": 5}),
             scnn_variant({"out_of_plane": "slot_only"}), scnn_variant({"weight_order": "k_then_rs"}),
             scnn_variant({"bank_mapping": "dnnsim_xor"}), scnn_variant({"bank_mapping": "channel_spread",
                                                                       "weight_order": "k_then_rs"}))
    for arch, run in zip(archs, simulate_many(archs, network)):
        alone = simulate(arch, network)
        assert run.layers == alone.layers and run.energy == alone.energy


def test_reused_layer_runs_runs_an_arch_on_a_layer_once(monkeypatch):
    from accel_sim.pipeline import simulate as pipeline
    network, arch = conv_network("googlenet", 2), load_arch("scnn")
    expected = simulate(arch, network)
    calls = []
    original = pipeline._run_and_cost
    monkeypatch.setattr(pipeline, "_run_and_cost", lambda *args: calls.append(args[2].name) or original(*args))
    with pipeline.reused_layer_runs():
        first, again = simulate(arch, network), simulate(arch, network)
        other = simulate(load_arch("dcnn"), network)   # another arch runs its own
    assert first.layers == again.layers == expected.layers and first.energy == again.energy == expected.energy
    assert len(calls) == 2 * len(network.layers) and other.layers != first.layers
    simulate(arch, network)   # outside the block every layer runs
    assert len(calls) == 3 * len(network.layers)


@pytest.mark.parametrize("design", ["scnn_sparse_a", "scnn_sparse_w"])
def test_pieces_of_a_shape_kept_for_the_process_give_the_same_runs(design):
    """A design that does not skip weights (activations) cuts every weight (activation) into vectors: kept by
    conv view and settings (models/scnn/fast/shape_pieces.py), another density of the same shapes reuses them and
    gets what it gets with none kept."""
    from accel_sim.models.scnn.fast import shape_pieces
    from accel_sim.studies.scnn_common import with_density
    arch, network = load_arch(design), conv_network("googlenet", 2)
    shape_pieces.clear()
    simulate(arch, with_density(network, 0.5))
    kept = len(shape_pieces._kept)
    assert kept >= len(network.layers)
    reused = simulate(arch, with_density(network, 0.3))
    assert len(shape_pieces._kept) == kept
    shape_pieces.clear()
    fresh = simulate(arch, with_density(network, 0.3))
    assert reused.layers == fresh.layers and reused.energy == fresh.energy


def test_pe_work_kept_for_a_block_of_runs(monkeypatch):
    """Inside reused_layer_runs an arch of another run whose PEs read the same settings (here only its DRAM tile
    order differs) takes a layer's PE work from the block (foundations' block_piece), and gets what it gets alone."""
    from accel_sim.models.scnn import fast
    from accel_sim.pipeline import simulate as pipeline
    network = conv_network("alexnet", 2)
    archs = (load_arch("scnn"), load_arch("scnn", {"scnn.dram_tile_order": "min_traffic"}))
    alone = [simulate(arch, network) for arch in archs]
    calls = []
    original = fast.cartesian_work
    monkeypatch.setattr(fast, "cartesian_work", lambda *args: calls.append(1) or original(*args))
    with pipeline.reused_layer_runs():
        runs = [simulate(arch, network) for arch in archs]
    assert len(calls) == sum(layer.groups for layer in network.layers)   # each (layer, conv group) once
    for run, expected in zip(runs, alone):
        assert run.layers == expected.layers and run.energy == expected.energy


def test_shared_layer_runs_are_read_back_from_the_operands_folder(tmp_path, monkeypatch):
    """reused_layer_runs(shared=True) inside shared_operands (reproduce all): a later block (another study, maybe
    another process) reads each (arch, layer) result the first wrote instead of simulating it, and gets the same
    results and energy; outside a shared block, or without a folder, nothing is written."""
    from accel_sim.foundations.workload.operand_cache import shared_operands
    from accel_sim.pipeline import simulate as pipeline
    network, archs = conv_network("alexnet", 2), (load_arch("scnn"), load_arch("dcnn"))
    alone = [simulate(arch, network) for arch in archs]
    with pipeline.reused_layer_runs(shared=True):
        simulate(archs[0], network)   # no folder: nothing written
    with shared_operands(tmp_path):
        with pipeline.reused_layer_runs():
            simulate(archs[0], network)   # not shared: nothing written
        assert not list(tmp_path.iterdir())
        with pipeline.reused_layer_runs(shared=True):
            first = [simulate(arch, network) for arch in archs]
        assert len(list(tmp_path.iterdir())) == len(archs) * len(network.layers)
        monkeypatch.setattr(pipeline, "_run_and_cost", lambda *args: pytest.fail("a shared run simulated again"))
        with pipeline.reused_layer_runs(shared=True):
            again = [simulate(arch, network) for arch in archs]
    for runs in (first, again):
        for run, expected in zip(runs, alone):
            assert run.layers == expected.layers and run.energy == expected.energy and run.static == expected.static
            assert all(type(r.metrics) is type(e.metrics) for r, e in zip(run.layers, expected.layers))
