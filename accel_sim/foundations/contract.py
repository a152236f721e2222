"""The family contract: five narrow hooks every accelerator model provides.

A family is one folder, ``accel_sim/models/<family>/``, with one file (or package) per role:

=================  ===========================================================================
``spec.py``        its config section (a frozen dataclass, validated at the boundary)
``plan.py``        pure functions: tiling, mapping, work lists. ``plan(arch, layer) -> Plan``
``fast.py``        vectorised counting. ``fast(plan, max_cycles) -> Counters``
``reference.py``   the discrete-event model (SimPy processes for the hardware agents, stores
                   with the hardware depths, events per tile / burst / FIFO entry / barrier).
                   ``reference(plan, max_cycles) -> Counters``. It imports only its family's
                   ``spec`` and ``plan``, the shared blocks of :mod:`accel_sim.hardware`,
                   simpy and numpy: it never reuses the code it checks.
``accounting.py``  ``account(plan, counters) -> LayerResult``: raw counters to actions and
                   bytes, applied to either path's counters, never used inside one.
``family.py``      ``FAMILY = Family(...)``, the object :mod:`accel_sim.pipeline.catalog` lists.
=================  ===========================================================================

Both paths return the same :class:`Counters` subclass (cycles, every action count, bytes per
level, stalls by cause, all integers); the refinement test compares them field by field
(:func:`counter_differences`), so a wrong action count fails as surely as a wrong cycle count.
Energy is not a hook: :func:`accel_sim.pipeline.simulate.simulate_layer` costs the actions afterwards.
Area is priced the same way: a family only lists its blocks (``components``, optional).

A family whose plan has pieces other archs can share on the same layer (the weights' non-zeros, an
encoding that only some settings change) declares ``shares_work``: its plan then takes a third
argument, the run's :class:`BatchMemo`, which :func:`accel_sim.pipeline.simulate.simulate_many` hands to
every arch of one layer.
"""
from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields
from typing import Any, Generic, TypeVar

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.memo import ShapeMemo
from accel_sim.foundations.results.components import Component
from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.foundations.workload.layer import Layer


@dataclass(frozen=True)
class Counters:
    """Base of every family's raw counters: a frozen dataclass of integers (or tuples of them).

    Subclasses declare their fields with a comment giving the unit (cycles, words, actions,
    bytes). Nothing here is an energy or a derived ratio: those come from accounting.
    """

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def counter_differences(fast: Counters, reference: Counters) -> list[str]:
    """Every field on which two counters objects differ, as ``"name: fast != reference"``."""
    if type(fast) is not type(reference):
        return [f"counters of different types: {type(fast).__name__} and {type(reference).__name__}"]
    return [f"{name}: {value!r} != {reference_value!r}"
            for (name, value), reference_value in zip(fast.as_dict().items(), reference.as_dict().values())
            if value != reference_value]


@dataclass(frozen=True)
class Section:
    """A model's part of an arch config: the ``<name>:`` section, its spec class and what it is.

    The catalog adds one field per listed model to ``ArchSpec``, in the order of its list: optional
    (``None`` unless the config has the section; required when ``family`` names it) or, for a unit
    every accelerator has (``attached``), present in every config with the spec's defaults.
    """

    spec: type            # the section's frozen dataclass, validated at the boundary
    doc: str              # one line for the config reference
    attached: bool = False


T = TypeVar("T")


def _read_only(value: object) -> None:
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    elif isinstance(value, (tuple, list)):
        for item in value:
            _read_only(item)
    elif dataclasses.is_dataclass(value):
        for f in fields(value):
            _read_only(getattr(value, f.name))


class BatchMemo:
    """What the archs of one run share on the layer being run: pieces of their plans (or counts) that
    depend on the layer and a few settings only, each kept under a key naming everything it is computed
    from. It holds one layer's pieces: a piece of another layer drops them first (before that layer's
    operands are made), so two layers' pieces are never held together. Arrays kept are made read-only:
    one arch cannot change what another reads."""

    def __init__(self) -> None:
        self._layer: Layer | None = None
        self._entries: dict[Hashable, object] = {}

    def enter(self, layer: Layer) -> None:
        """Start (or go on with) ``layer``: another layer's pieces are dropped now."""
        if self._layer is not layer and self._layer != layer:
            self._entries.clear()
            self._layer = layer

    def get(self, layer: Layer, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, or what it returned for the same ``layer`` and ``key``."""
        self.enter(layer)
        if key not in self._entries:
            value = compute()
            _read_only(value)
            self._entries[key] = value
        return self._entries[key]  # type: ignore[return-value]


class Hook:
    """A family's hook named by its module and attribute, imported on its first call: loading the
    catalog imports each family's spec only, so a run imports the model code of its own family and no
    other (SimPy and the references only when a reference runs)."""

    __slots__ = ("module", "attribute", "_target")

    def __init__(self, module: str, attribute: str) -> None:
        self.module, self.attribute = module, attribute
        self._target: Callable[..., Any] | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        target = self._target
        if target is None:
            target = self._target = getattr(importlib.import_module(self.module), self.attribute)
        return target(*args, **kwargs)

    def __reduce__(self) -> tuple:
        return Hook, (self.module, self.attribute)

    def __repr__(self) -> str:
        return f"Hook({self.module}.{self.attribute})"


# Inside a block of runs (pipeline.simulate.reused_layer_runs): pieces a model computes from a layer and a few
# settings, kept across the block's runs of that layer (another batch of archs that meets the same piece).
_block_pieces: ShapeMemo | None = None


@contextmanager
def kept_pieces() -> Iterator[None]:
    """Within the block, :func:`block_piece` keeps what it computes (outside, it keeps nothing)."""
    global _block_pieces
    previous, _block_pieces = _block_pieces, ShapeMemo()
    try:
        yield
    finally:
        _block_pieces = previous


def block_piece(key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, or, inside :func:`kept_pieces`, what it returned for the same ``key`` in the block (the key
    names everything it is computed from, the layer spec included)."""
    memo = _block_pieces
    return compute() if memo is None else memo.get(key, compute)


PlanT = TypeVar("PlanT")
CountersT = TypeVar("CountersT", bound=Counters)


@dataclass(frozen=True)
class Family(Generic[PlanT, CountersT]):
    """One accelerator family: its config section's name and its four hooks."""

    name: str                                                   # the arch config section, e.g. "cnvlutin"
    plan: Callable[..., PlanT]     # pure: tiling, mapping, work lists; (arch, layer), + memo if shares_work
    fast: Callable[[PlanT, int | None], CountersT]              # vectorised counting
    reference: Callable[[PlanT, int | None], CountersT]         # discrete-event model (SimPy)
    account: Callable[[PlanT, CountersT], LayerResult]          # counters -> LayerResult
    # Values the plan and fast path hold for a layer, from shapes only (accel_sim.foundations.workload.work);
    # None: the layer's GEMM-view operands. Checked against a limit before planning.
    work_elements: Callable[[ArchBase, Layer], int] | None = None
    # The blocks the chip is built of, from its config (accounting.components), for area and
    # leakage (accel_sim.foundations.energy.area); None: the family reports no area (no area columns).
    components: Callable[[ArchBase], tuple[Component, ...]] | None = None
    # True: a batched GEMM runs as one grouped layer (every instance in one launch, as a GPU's
    # batched GEMM kernel); False: its instances one after the other (accel_sim.pipeline.simulate).
    batched_as_groups: bool = False
    # True: the family stores a layer's weights at its quantized_weight_bits (weight-only
    # quantization); False: a layer asking for a width other than the arch's word is refused.
    quantized_weights: bool = False
    # True: the family moves a layer's group-wise quantization scales (quant_group_size) with its weights; False:
    # such a layer runs without them, reported as not honoured (accel_sim.pipeline.honoured).
    group_scales: bool = False
    # True: the family builds its datapath from a layer's ``precision:`` (lowbit, dlu); False: a layer
    # asking for one runs at the arch's arithmetic, with a warning (accel_sim.pipeline.honoured).
    precisions: bool = False
    # True: the family runs each layer at its activation_bits (a bit-serial datapath); False: such a layer is
    # reported as not honoured (accel_sim.pipeline.honoured).
    activation_precision: bool = False
    # True: the family's output stage applies a conv layer's max_pool before writing (lowbit); False: such a
    # layer is reported as not honoured (accel_sim.pipeline.honoured).
    fused_pool: bool = False
    # Other families' config sections this family reads (simt reads the A100 machine from tensor_core);
    # any other family's section in a config is reported as unused (accel_sim.pipeline.catalog.load_arch).
    reads_sections: tuple[str, ...] = ()
    # Its config section (None only for families built outside the catalog, in tests).
    section: Section | None = None
    # True: plan(arch, layer, memo) also takes a BatchMemo, shared by the archs of one run on a layer.
    shares_work: bool = False
    # True: a layer's result depends on the arch and the layer's fields, its name only through the result's
    # name and operand hashes (no operand value is drawn to count it), so a shape run once in a process
    # is not run again (ShapeMemo in accel_sim.pipeline.simulate.simulate_layer).
    counts_from_shape: bool = False

    def counters(self, arch: ArchBase, layer: Layer, reference: bool = False,
                 max_cycles: int | None = None, memo: BatchMemo | None = None) -> tuple[PlanT, CountersT]:
        """Plan the layer once and count it with one of the two paths (``memo``: pieces shared with
        the other archs of a run, for a family that ``shares_work``)."""
        plan = self.plan(arch, layer, memo) if self.shares_work and memo is not None else self.plan(arch, layer)
        count = self.reference if reference else self.fast
        return plan, count(plan, max_cycles)

    def layer_result(self, arch: ArchBase, layer: Layer, reference: bool = False,
                     max_cycles: int | None = None, memo: BatchMemo | None = None) -> LayerResult:
        plan, counters = self.counters(arch, layer, reference, max_cycles, memo)
        return self.account(plan, counters)

    def refinement(self, arch: ArchBase, layer: Layer, max_cycles: int | None = None) -> list[str]:
        """Differences between the fast path's and the reference's counters on one layer (empty:
        they agree on every field). The plan is made once and given to both."""
        plan = self.plan(arch, layer)
        return counter_differences(self.fast(plan, max_cycles), self.reference(plan, max_cycles))
