"""Plan of a systolic layer (pure): the fold mapping, the buffers' sizes, the operand addresses.

- :mod:`.mapping`: how a layer's GEMM folds onto the array (dataflows, folds, cycles per fold, N:M);
- :mod:`.row_sparsity`: SCALE-Sim's row-wise sparsity (per-filter N drawn from the seed, the
  ellpack_block-packed filter operand);
- :mod:`.operands`: operand addresses, the blocks each fold uses and the order the read buffers
  fetch them from DRAM;
- :mod:`.streaming`: which read operands stay resident under ``operand_fetch: streaming``;
- :mod:`.buffers`: the three SRAM buffers and their DRAM streams as the config sizes them;
- :mod:`.block_scaling`: MX / NVFP4 operands (element width, scales per block of K).

:class:`SystolicPlan` is all the fast path, the reference and the accounting share. The address
matrices and fetch sequences are built on first use: a CALC run whose operands fit their buffers
never needs them.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.models.systolic.plan.block_scaling import SystolicBlockScaling, block_scaling
from accel_sim.models.systolic.plan.buffers import BUFFERS, capacity_words, checked_spec, dram_words_per_cycle, ofmap_line_words
from accel_sim.models.systolic.plan.mapping import SystolicMapping, map_layer
from accel_sim.models.systolic.plan.operands import READ_OPERANDS, OperandMatrices, fetch_sequence, operand_matrices
from accel_sim.models.systolic.plan.streaming import resident_operands
from accel_sim.models.systolic.spec import SystolicSpec
from accel_sim.foundations.workload.layer import Layer


class _OnFirstUse(Mapping):
    """A read-only mapping whose values are computed on first access."""

    def __init__(self, keys, build):
        self._keys, self._build, self._values = tuple(keys), build, {}

    def __getitem__(self, key):
        if key not in self._values:
            if key not in self._keys:
                raise KeyError(key)
            self._values[key] = self._build(key)
        return self._values[key]

    def __iter__(self):
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


@dataclass(frozen=True)
class SystolicPlan:
    arch: ArchBase
    spec: SystolicSpec
    layer: Layer
    mapping: SystolicMapping
    capacity_words: Mapping[str, int]   # words each buffer holds ("ifmap", "filter", "ofmap")
    user_bandwidth: bool                # dram.bandwidth_mode is "user" (else "calc")
    dram_words_per_cycle: int           # words per cycle of each read stream (USER mode)
    ofmap_line_words: int               # words per cycle of the output drain
    streaming: bool                     # systolic.operand_fetch is "streaming" (else SCALE-Sim's scratchpads)
    resident: Mapping[str, bool]        # streaming: read operands fetched once (they fit half their buffer)
    scaling: SystolicBlockScaling | None = None   # block-scaled ifmap / filter (MX / NVFP4), else None

    @cached_property
    def matrices(self) -> OperandMatrices:
        """Address matrices of one group (every group has the same)."""
        return operand_matrices(self.mapping, self.layer)

    @cached_property
    def fetch_sequences(self) -> Mapping[str, np.ndarray]:
        """Each read operand's addresses in the order its buffer fetches them (``-1``: padding),
        each built on first use (the fast path reads only those it has no closed form for)."""
        return _OnFirstUse(READ_OPERANDS, lambda op: fetch_sequence(self.mapping, self.matrices, op))

    @property
    def metadata_bits(self) -> int:
        """Bits of N:M position metadata per kept weight (0 when dense or 1:1): SCALE-Sim's
        ``ellpack_block`` storage, ``ceil(log2 M)``. Row-wise: the weight's position in its block,
        ``ceil(log2 BlockSize)`` (an assumption: SCALE-Sim's SPARSE_REPORT sizes it from the
        topology's N:M column, which row-wise mapping otherwise ignores, and charges no traffic)."""
        if self.mapping.row_wise is not None:
            return math.ceil(math.log2(self.mapping.row_wise.block_size))
        nm = self.mapping.nm
        if nm is None or nm.m == 1:
            return 0
        return math.ceil(math.log2(nm.m))


def plan(arch: ArchBase, layer: Layer) -> SystolicPlan:
    spec = checked_spec(arch)
    mapping = map_layer(spec, layer)
    capacity = MappingProxyType({b: capacity_words(arch, spec, b) for b in BUFFERS})
    return SystolicPlan(
        arch=arch, spec=spec, layer=layer, mapping=mapping, capacity_words=capacity,
        user_bandwidth=arch.dram.bandwidth_mode == "user", dram_words_per_cycle=dram_words_per_cycle(arch),
        ofmap_line_words=ofmap_line_words(arch, spec), streaming=spec.streaming,
        resident=resident_operands(mapping, capacity) if spec.streaming else MappingProxyType({}),
        scaling=block_scaling(spec, layer, arch.word_bits))
