"""The one path from specs to results: plan, count (fast path or reference), account, cost.

Every caller (the CLI, sweeps, studies, notebooks) goes through :func:`simulate_layer`,
:func:`simulate` or :func:`simulate_many` (several archs over one workload, layer by layer: every arch
of a layer runs before the next layer, so the layer's operands are made once and the families that
share work (``Family.shares_work``) share pieces of their plans); models never load energy tables
themselves.

A batched GEMM (:class:`~accel_sim.foundations.workload.layer.BatchedGemmLayer`) is run here, for every
family alike: its instances one after the other, each a plain GEMM with its own operands,
their results added (:func:`accel_sim.foundations.results.instances.sequential_result`).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.foundations.energy.area import AreaBreakdown, area_of, static_energy
from accel_sim.foundations.energy.area_table import load_area_table
from accel_sim.foundations.energy.cost import EnergyBreakdown, cost, with_uncounted
from accel_sim.foundations.energy.table import EnergyTable, load_energy_table
from accel_sim.foundations.energy.technology import scale_factors, voltage_factor
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.contract import BatchMemo, Family, kept_pieces
from accel_sim.foundations.memo import ShapeMemo
from accel_sim.pipeline.catalog import family_of
from accel_sim.pipeline.honoured import warn_unhonoured
from accel_sim.foundations.results.instances import sequential_result
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.pipeline.run_result import RunResult
from accel_sim.models.vector_unit.family import vector_layer_result
from accel_sim.foundations.workload.layer import BatchedGemmLayer, Network, NetworkLayer, VectorLayer
from accel_sim.foundations.workload.memory import network_footprint, refusal
from accel_sim.foundations.workload.operand_cache import pickled_through_cache
from accel_sim.foundations.workload.operands import layer_operands
from accel_sim.foundations.workload.structured import compact_layer, compact_network
from accel_sim.foundations.workload.work import check_work


def _checked_family(arch: ArchSpec, layer: NetworkLayer) -> Family:
    family = family_of(arch)
    if isinstance(layer, VectorLayer):  # runs on the vector unit, not the family
        return family
    quantized = layer.quantized_weight_bits
    if quantized is not None and quantized != arch.word_bits and not family.quantized_weights:
        raise InputError.single(layer.name, "quantized_weight_bits",
                                f"{quantized}: the {family.name} family stores every operand at the arch's "
                                f"{arch.word_bits}-bit word (weight-only quantization runs on tensor_core, pe_array "
                                f"and dlu); leave it out or set it to {arch.word_bits}")
    warn_unhonoured(family, arch, layer)
    one = ((layer.as_grouped() if family.batched_as_groups else layer.instance(0))  # one launch, or one at a time
           if isinstance(layer, BatchedGemmLayer) else layer)
    check_work(one, arch.name, None if family.work_elements is None else lambda lay: family.work_elements(arch, lay))
    return family


@dataclass(frozen=True)
class LayerRun:
    """One layer's result and its energy (dynamic: actions; static: leakage for the layer's time,
    None when the family lists no blocks)."""

    result: LayerResult
    energy: EnergyBreakdown
    static: EnergyBreakdown | None = None


def chip_area(arch: ArchSpec) -> AreaBreakdown | None:
    """The chip's area and leakage at its node (None: the family lists no blocks, so no area).

    Blocks come from the family (``Family.components``), prices from ``arch.area_table``; a block
    the table cannot price is bad input naming the component."""
    family = family_of(arch)
    if family.components is None:
        return None
    return area_of(family.components(arch), load_area_table(arch.area_table), arch.technology_node,
                   where=f"arch {arch.name}")


def energy_factor(arch: ArchSpec, table: EnergyTable) -> float:
    """Scale from the energy table's node to the arch's (exactly 1.0 at the same node), and from the table's supply
    to the arch's ``supply_voltage`` where the config states one (dynamic energy only)."""
    node = scale_factors(table.node_nm, arch.technology_node).energy if table.node_nm else 1.0
    if arch.supply_voltage is None:
        return node
    return node * voltage_factor(arch.technology_node, arch.supply_voltage)


def costed(actions: tuple, arch: ArchSpec, table: EnergyTable) -> EnergyBreakdown:
    """The energy of ``actions`` on ``arch``: counts x ``table`` at the arch's node and supply, plus the blocks
    its config names as uncounted (``uncounted_blocks``, at their shares of the chip's power)."""
    return with_uncounted(cost(actions, table, energy_factor(arch, table)),
                          ((b.block, b.share) for b in arch.uncounted_blocks))


def simulate_layer(arch: ArchSpec, layer: NetworkLayer, table: EnergyTable | None = None, reference: bool = False,
                   max_cycles: int | None = None, overlap_budget: int = 0,
                   area: AreaBreakdown | None = None, memo: BatchMemo | None = None) -> LayerRun:
    """Simulate one layer on ``arch`` and cost it with ``table`` (default: the arch's energy table).

    ``reference=True`` counts with the family's discrete-event reference instead of its fast
    path (slow; same result). ``max_cycles`` stops a run that would go beyond it with a
    :class:`~accel_sim.foundations.errors.SimulationError` instead of running on. A layer too large to
    simulate is refused first (:func:`~accel_sim.foundations.workload.work.check_work`). A batched GEMM runs
    its instances one after the other (``max_cycles`` bounds each instance), or as one grouped
    layer for a family with ``batched_as_groups`` (the tensor core: one kernel launch). A vector layer runs
    on the arch's vector unit (:mod:`accel_sim.models.vector_unit`); in overlapped mode up to
    ``overlap_budget`` of its cycles hide under matrix work.
    ``area`` (from :func:`chip_area`) charges the blocks' leakage for the layer's time as static energy.
    ``memo``: what the other archs of a run share on this layer (:func:`simulate_many`).
    A filter- or channel-pruned layer runs compacted (:mod:`accel_sim.foundations.workload.structured`).
    """
    layer = compact_layer(layer)
    family = _checked_family(arch, layer)
    table = table if table is not None else load_energy_table(arch.energy_table)
    runs, key = SHAPE_RUNS, _shape_key(family, arch, layer, reference, max_cycles, overlap_budget)
    if key is None and _same_runs is not None:   # inside reused_layer_runs: this arch may have run this very layer
        runs, key = _same_runs, _same_layer_key(arch, layer, reference, max_cycles)
    if key is None:
        result, energy = _run_and_cost(family, arch, layer, table, reference, max_cycles, overlap_budget, memo)
    else:
        def run() -> tuple[LayerResult, EnergyBreakdown]:
            return _run_and_cost(family, arch, layer, table, reference, max_cycles, overlap_budget, memo)
        counted_with, result, energy = runs.get(key, lambda: (table, *(
            _through_folder(key, arch, table, run) if runs is _same_runs and _shared_runs else run())))
        if counted_with is not table:
            energy = costed(result.actions, arch, table)
        if result.layer != layer.name:
            result = _renamed(result, layer)
    static = None if area is None else static_energy(area, result.cycles / arch.clock)
    return LayerRun(result, energy, static)


def _run_and_cost(family: Family, arch: ArchSpec, layer: NetworkLayer, table: EnergyTable, reference: bool,
                  max_cycles: int | None, overlap_budget: int, memo: BatchMemo | None
                  ) -> tuple[LayerResult, EnergyBreakdown]:
    if isinstance(layer, VectorLayer):
        result = vector_layer_result(arch.vector_unit, layer, reference, max_cycles, overlap_budget)
    elif isinstance(layer, BatchedGemmLayer) and family.batched_as_groups:
        result = family.layer_result(arch, layer.as_grouped(), reference, max_cycles, memo)
    elif isinstance(layer, BatchedGemmLayer):
        result = sequential_result(layer.name, [_instance_result(family, arch, layer.instance(i), reference, max_cycles,
                                                                 memo) for i in range(layer.instances)])
    else:
        result = family.layer_result(arch, layer, reference, max_cycles, memo)
    return result, costed(result.actions, arch, table)


# Same shape, same device = same answer: each (arch, layer without its name) runs once per process
# (Family.counts_from_shape, vector layers); a transformer's 32 identical blocks, or a sweep over batch
# and context, reuse every layer they have seen.
SHAPE_RUNS = ShapeMemo()
_FIELDS: dict[type, tuple[str, ...]] = {}


def _shape_key(family: Family, arch: ArchSpec, layer: NetworkLayer, reference: bool, max_cycles: int | None,
               overlap_budget: int) -> Hashable | None:
    """What a layer's result is computed from, its name aside; None: the result may depend on the name
    or on operand values (a family that reads them, a payload), or on instances named one by one."""
    vector = isinstance(layer, VectorLayer)
    if reference or not (vector or family.counts_from_shape):
        return None
    if not vector and (layer.operands.payload is not None
                       or (isinstance(layer, BatchedGemmLayer) and not family.batched_as_groups)):
        return None
    names = _FIELDS.setdefault(type(layer), tuple(f.name for f in dataclasses.fields(layer) if f.name != "name"))
    budget = overlap_budget if vector and arch.vector_unit.overlap == "overlapped" else 0
    return arch, type(layer), tuple(getattr(layer, n) for n in names), max_cycles, budget


# Inside reused_layer_runs: every (arch, layer) the block has run, whatever its family (the layer whole, its name
# included: the name enters its operands' seed), so a caller that runs the same layers again (a study pruning one
# layer of a network while its neighbours stay as they are) counts each once.
_same_runs: ShapeMemo | None = None
_shared_runs = False   # inside reused_layer_runs(shared=True)


@contextmanager
def reused_layer_runs(shared: bool = False) -> Iterator[None]:
    """Within the block, a layer that an arch has already run (the same arch spec, the same layer spec) is not
    simulated again: its result is the first run's (the fast paths and references are deterministic functions of
    the arch and the layer; a layer whose operands come from a file is run every time). Pieces a model keeps for
    the block (:func:`~accel_sim.foundations.contract.block_piece`) serve another arch's run of the same layer.

    ``shared``: the results also go through the folder of
    :func:`~accel_sim.foundations.workload.operand_cache.shared_operands` when one is set (``reproduce all``), so a
    ``shared`` block of another study, in this process or another, reads them instead of simulating the same
    layers again (:func:`_through_folder`; the SCNN studies run the same pruned networks and densities)."""
    global _same_runs, _shared_runs
    previous, _same_runs = _same_runs, ShapeMemo()
    was_shared, _shared_runs = _shared_runs, shared
    try:
        with kept_pieces():
            yield
    finally:
        _same_runs, _shared_runs = previous, was_shared


def _through_folder(key: Hashable, arch: ArchSpec, table: EnergyTable,
                    run: Callable[[], tuple[LayerResult, EnergyBreakdown]]) -> tuple[LayerResult, EnergyBreakdown]:
    """``run()``, or the result a process wrote to the shared folder for ``key`` (:func:`_same_layer_key`) and its
    energy under ``table`` (the cost :func:`_run_and_cost` takes)."""
    made: list[tuple[LayerResult, EnergyBreakdown]] = []
    result = pickled_through_cache(("layer run", key), lambda: made.append(run()) or made[0][0])
    return made[0] if made else (result, costed(result.actions, arch, table))


def _same_layer_key(arch: ArchSpec, layer: NetworkLayer, reference: bool, max_cycles: int | None) -> Hashable | None:
    if isinstance(layer, VectorLayer) or layer.operands.payload is not None:   # vector layers: overlap budgets
        return None
    return arch, layer, reference, max_cycles


def _instance_result(family: Family, arch: ArchSpec, layer: NetworkLayer, reference: bool, max_cycles: int | None,
                     memo: BatchMemo | None) -> LayerResult:
    """One instance of a batched GEMM run one at a time: the instances share one shape, so a family that counts
    from the shape counts the first and the others take its result under their own name and operand hashes
    (kept in :data:`SHAPE_RUNS` apart from whole layers' entries, which also hold their energy)."""
    key = _shape_key(family, arch, layer, reference, max_cycles, 0)
    if key is None:
        return family.layer_result(arch, layer, reference, max_cycles, memo)
    result = SHAPE_RUNS.get(("instance", key), lambda: family.layer_result(arch, layer, reference, max_cycles, memo))
    return result if result.layer == layer.name else _renamed(result, layer)


def _renamed(result: LayerResult, layer: NetworkLayer) -> LayerResult:
    """A result of another layer of the same shape, as this layer's: its name, and the hashes of its own
    operands (the name enters their seed; computed from the spec, no tensor drawn)."""
    hashes = result.operand_hashes
    if hashes:
        fresh = layer_operands(layer.as_grouped() if isinstance(layer, BatchedGemmLayer) else layer).hashes
        hashes = MappingProxyType({name: fresh[name] for name in hashes})
    return dataclasses.replace(result, layer=layer.name, operand_hashes=hashes)


def check_device_memory(arch: ArchSpec, network: Network) -> None:
    """Refuse (an :class:`InputError`, one line) a network whose weights + KV cache + activations exceed
    the arch's ``memory_capacity``: the need, the capacity and the largest batch that fits
    (:mod:`accel_sim.foundations.workload.memory`). An arch with no stated capacity is not checked."""
    if arch.memory_capacity is None:
        return
    footprint = network_footprint(network, arch.word_bits)
    if not footprint.fits(arch.memory_capacity):
        raise InputError.single(network.name, "memory", refusal(footprint, arch.name, arch.memory_capacity))


def simulate(arch: ArchSpec, network: Network, reference: bool = False,
             on_layer: Callable[[NetworkLayer], None] | None = None) -> RunResult:
    """Simulate every layer of ``network`` on ``arch`` and apply the arch's energy table (and,
    when the family lists its blocks, its area table: area, leakage and static energy).

    ``on_layer`` is called with each layer before it is simulated (progress, error context).
    A network that does not fit the arch's device memory is refused (:func:`check_device_memory`).
    Vector layers in overlapped mode hide under the cycles of the latest matrix layer that
    earlier vector layers have not already used."""
    return simulate_many((arch,), network, reference, on_layer)[0]


def simulate_many(archs: Sequence[ArchSpec], network: Network, reference: bool = False,
                  on_layer: Callable[[NetworkLayer], None] | None = None) -> tuple[RunResult, ...]:
    """:func:`simulate` of every arch of ``archs`` on ``network`` (the same results, in the same order),
    run layer by layer: every arch of a layer before the next layer, so the layer's operands are made once
    and the pieces of plans that several archs share are computed once (``Family.shares_work``; one
    layer's pieces held at a time). ``on_layer`` is called with each layer before its archs run.
    Filter- and channel-pruned layers and their neighbours are compacted first, for every family
    (:func:`~accel_sim.foundations.workload.structured.compact_network`); the results hold that network."""
    network = compact_network(network)
    for arch in archs:   # every layer's size on every arch, before the first is simulated
        for layer in network.layers:
            _checked_family(arch, layer)
        check_device_memory(arch, network)   # a model that does not fit its device is never simulated
    tables = [load_energy_table(arch.energy_table) for arch in archs]
    areas = [chip_area(arch) for arch in archs]
    runs: list[list[LayerRun]] = [[] for _ in archs]
    budgets = [0] * len(archs)  # per arch: matrix cycles not yet used to hide vector work
    memo = BatchMemo()
    for layer in network.layers:
        if on_layer is not None:
            on_layer(layer)
        for i, arch in enumerate(archs):
            run = simulate_layer(arch, layer, tables[i], reference, overlap_budget=budgets[i], area=areas[i],
                                 memo=memo)
            vector = isinstance(layer, VectorLayer)
            hidden = int(run.result.metrics.get("vector_hidden_cycles", 0)) if vector else 0
            budgets[i] = budgets[i] - hidden if vector else run.result.cycles
            runs[i].append(run)
    return tuple(RunResult(arch=arch, network=network, layers=tuple(r.result for r in arch_runs),
                           energy=tuple(r.energy for r in arch_runs), area=area,
                           static=() if area is None else tuple(r.static for r in arch_runs))
                 for arch, arch_runs, area in zip(archs, runs, areas))
