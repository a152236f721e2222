"""Dense systolic array (SCALE-Sim v3 compatible): one layer in, one :class:`LayerResult` out.

Two implementations give identical cycle counts:

- :func:`simulate_layer`, the fast path (:mod:`accel_sim.systolic.timing`: closed forms and
  vectorised numpy);
- :func:`simulate_layer_reference`, the per-fold SimPy reference
  (:mod:`accel_sim.systolic.reference`), for tests and small layers.

What is reproduced from SCALE-Sim 3.0.0 and how:

- ``cycles`` is SCALE-Sim's "Total Cycles" (the cycle of the last output write, stalls
  included) and ``compute_cycles`` the same without stalls, ``folds * fold_lines - 1``;
  ``stall_cycles = cycles - compute_cycles`` is SCALE-Sim's "Stall Cycles" whenever the very
  last demand cycle has no read miss (always unless the array has a single column).
- ``dram.bandwidth_mode: calc``: no memory stall (reads never stall; the output buffer drains
  ``cols`` words per cycle, as SCALE-Sim does). ``user``: ``dram.bandwidth / word`` words per
  cycle for each of the three operand streams, reads with ``dram.latency`` (SCALE-Sim: 1
  cycle), writes posted.
- SRAM accesses are SCALE-Sim's array-side counts (DETAILED_ACCESS_REPORT "SRAM ... Reads /
  Writes"), including its quirks: the ifmap is read ``M/N`` times under N:M sparsity, and the
  output-stationary output count adds ``rows + cols`` per fold. The buffers' DRAM side (fills,
  drains) is counted as extra SRAM writes / reads.
- DRAM words are SCALE-Sim's counts: USER, the fill and prefetch bursts (whole bus lines) and
  the drained output words; CALC, each read operand's distinct words (exactly SCALE-Sim's
  when it fits the active half of its buffer, see :func:`timing.calc_read_words`).
- N:M position metadata (``ceil(log2 M)`` bits per kept weight, SCALE-Sim's ``ellpack_block``
  storage) is fetched once and read with every weight: extra DRAM / filter-SRAM actions and
  bytes of that width. As in SCALE-Sim (which only reports it) it takes no cycles.
- Groups (grouped / depthwise convolutions) run one after the other, each like a separate
  SCALE-Sim layer; results are per group times ``groups``.

SCALE-Sim features with no effect here: bank/port counts and request-buffer depths (they
only matter with custom layouts or Ramulator traces in SCALE-Sim).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from accel_sim.arch.spec import ArchSpec, SystolicSpec
from accel_sim.errors import SimulationError
from accel_sim.hardware.scalesim_scratchpad import SETS, ReadBufferGeometry, WriteBufferGeometry
from accel_sim.results.counts import ActionCount
from accel_sim.results.layer_result import LayerResult
from accel_sim.systolic import operands, timing
from accel_sim.systolic.mapping import SystolicMapping, map_layer
from accel_sim.systolic.operands import ROLES
from accel_sim.workload.layer import Layer

BITS_PER_BYTE = 8
POSTED_WRITE_LATENCY = 0  # cycles: output drains are posted writes (SCALE-Sim write_port latency 0)
READ_OPERANDS = ("ifmap", "filter")
MIN_BUFFER_WORDS = 2      # a double buffer needs at least one word in each half


@dataclass(frozen=True)
class GroupTiming:
    """Timing and DRAM traffic of one group, as both implementations report it."""

    cycles: int
    compute_cycles: int
    scalesim_stall_cycles: int
    dram_read_words: dict[str, int]   # per read operand
    dram_write_words: int
    cycles_incl_prefetch: int         # SCALE-Sim "Total Cycles (incl. prefetch)"


def _spec(arch: ArchSpec) -> SystolicSpec:
    systolic = arch.section("systolic")
    if not all(b.double_buffered for b in (systolic.ifmap_sram, systolic.filter_sram,
                                           systolic.ofmap_sram)):
        raise ValueError(f"arch {arch.name!r}: the systolic model needs double-buffered SRAMs "
                         "(SCALE-Sim's only scratchpad organisation)")
    for operand in operands.OPERANDS:
        size = getattr(systolic, f"{operand}_sram").size
        if size * BITS_PER_BYTE < MIN_BUFFER_WORDS * arch.word_bits:
            raise ValueError(f"arch {arch.name!r}: systolic.{operand}_sram.size {size} B holds fewer than "
                             f"{MIN_BUFFER_WORDS} words of {arch.word_bits} bits (one per half of the double buffer)")
    return systolic


def capacity_words(arch: ArchSpec, operand: str) -> int:
    """Words a buffer holds (SCALE-Sim: ``floor(bytes / word size)``)."""
    size = getattr(_spec(arch), f"{operand}_sram").size
    return math.floor(size * BITS_PER_BYTE / arch.word_bits)


def dram_words_per_cycle(arch: ArchSpec) -> int:
    """Words per cycle of each DRAM operand stream in USER mode (whole words, at least one)."""
    return max(1, math.floor(arch.dram.bandwidth * BITS_PER_BYTE / arch.word_bits))


def ofmap_line_words(arch: ArchSpec) -> int:
    """Width of the output buffer's drain lines: the DRAM stream in USER mode, one word per
    array column in CALC mode (SCALE-Sim's ``ofmap_backing_bw = arr_col``)."""
    return dram_words_per_cycle(arch) if arch.dram.bandwidth_mode == "user" else _spec(arch).cols


def cycle_budget(mapping: SystolicMapping, arch: ArchSpec) -> int:
    """A bound no correct run of one group exceeds (the default ``max_cycles`` guard).

    Per demand line, each requested word can claim at most one burst per set of its buffer,
    and each claimed burst can make the array wait at most twice its length; a write can
    wait at most one drain.
    """
    width = mapping.rows + mapping.cols
    drain = WriteBufferGeometry(capacity_words(arch, "ofmap"), ofmap_line_words(arch)).lines_per_drain
    per_line = 1 + width * drain
    if arch.dram.bandwidth_mode == "user":
        words = dram_words_per_cycle(arch)
        burst = max(math.ceil(capacity_words(arch, op) / words) for op in READ_OPERANDS) + arch.dram.latency + 1
        per_line += width * (SETS + 1) * 2 * burst
    return mapping.demand_lines * per_line


def sram_accesses(mapping: SystolicMapping) -> dict[str, int]:
    """SCALE-Sim's array-side SRAM counts of one group (ifmap / filter reads, ofmap writes).

    A streamed operand is counted ``T x (its edge dimension)`` per sweep, swept once per fold
    of the other array dimension; a preloaded operand once; the output-stationary output once
    plus ``rows + cols`` per fold (SCALE-Sim adds them when flipping the drained block).
    Under N:M the ifmap count is multiplied by ``M/N`` (SCALE-Sim: "a row needs to be read
    M/N times").
    """
    counts = {}
    for operand, r in ROLES[mapping.dataflow.name].items():
        if r.kind == "stream":
            sweeps = mapping.col_folds if r.edge_dim == mapping.dataflow.rows_dim else mapping.row_folds
            counts[operand] = mapping.t * mapping.dim(r.edge_dim) * sweeps
        else:
            counts[operand] = mapping.sr * mapping.sc
            if r.kind == "drain":
                counts[operand] += (mapping.rows + mapping.cols) * mapping.folds
    if mapping.nm is not None:
        counts["ifmap"] = round(Fraction(counts["ifmap"] * mapping.nm.m, mapping.nm.n))
    return counts


def read_footprint_words(mapping: SystolicMapping, layer: Layer, operand: str) -> int:
    """Distinct words of a read operand (one group)."""
    if operand == "ifmap":
        return timing.touched_input_words(mapping, layer)
    return mapping.gemm.k * mapping.gemm.n


def fast_group_timing(arch: ArchSpec, layer: Layer, mapping: SystolicMapping) -> GroupTiming:
    """Timing of one group from closed forms and vectorised scans (see :mod:`timing`)."""
    ofmap = WriteBufferGeometry(capacity_words(arch, "ofmap"), ofmap_line_words(arch))
    if arch.dram.bandwidth_mode == "user":
        words = dram_words_per_cycle(arch)
        matrices = operands.operand_matrices(mapping, layer)
        reads = []
        for operand in READ_OPERANDS:
            fetch = operands.fetch_sequence(mapping, matrices, operand)
            geometry = ReadBufferGeometry(capacity_words(arch, operand), words, fetch.size,
                                          int((fetch != operands.NO_ADDRESS).sum()))
            demand = operands.demand_stream(mapping, matrices, operand)
            reads.append(timing.ReadStream(geometry, timing.read_misses(geometry, fetch, demand), arch.dram.latency))
        result = timing.timeline(mapping, ofmap, POSTED_WRITE_LATENCY, tuple(reads))
        first_read = min(-r.geometry.initial_lines for r in reads)
        return GroupTiming(cycles=result.cycles, compute_cycles=result.compute_cycles,
                           scalesim_stall_cycles=result.scalesim_stall_cycles,
                           dram_read_words={op: r.dram_words for op, r in zip(READ_OPERANDS, reads)},
                           dram_write_words=result.ofmap_dram_words,
                           cycles_incl_prefetch=result.last_drain_cycle - first_read)
    result = timing.timeline(mapping, ofmap, POSTED_WRITE_LATENCY)
    footprints = {op: read_footprint_words(mapping, layer, op) for op in READ_OPERANDS}
    first_requests: dict[str, int] = {}
    if any(words >= timing.calc_active_words(capacity_words(arch, op)) for op, words in footprints.items()):
        matrices = operands.operand_matrices(mapping, layer)  # only an overflowing operand needs it
        for operand in READ_OPERANDS:
            line = operands.first_demand_line(mapping, matrices, operand)
            if line is not None:
                first_requests[operand] = line
    return calc_group_timing(arch, mapping, result, footprints, first_requests)


def calc_group_timing(arch: ArchSpec, mapping: SystolicMapping, result: timing.Timeline,
                      footprints: dict[str, int], first_requests: dict[str, int]) -> GroupTiming:
    """CALC-mode DRAM counts and first DRAM cycle from the read operands' footprints (and, for
    an operand that overflows its buffer, the demand cycle of its first request)."""
    dram = {op: timing.calc_read_words(mapping, op, words, capacity_words(arch, op))
            for op, words in footprints.items()}
    starts = [timing.calc_first_fill_cycle(words, capacity_words(arch, op), first_requests.get(op, 0))
              for op, words in footprints.items()]
    incl = result.last_drain_cycle - min(starts)
    return GroupTiming(cycles=result.cycles, compute_cycles=result.compute_cycles,
                       scalesim_stall_cycles=result.scalesim_stall_cycles, dram_read_words=dram,
                       dram_write_words=result.ofmap_dram_words, cycles_incl_prefetch=incl)


def _bytes(words: int, word_bits: int) -> int:
    return math.ceil(words * word_bits / BITS_PER_BYTE)


def metadata_bits(mapping: SystolicMapping) -> int:
    """Bits of N:M position metadata per kept weight (0 when dense or 1:1)."""
    if mapping.nm is None or mapping.nm.m == 1:
        return 0
    return math.ceil(math.log2(mapping.nm.m))


def layer_result(arch: ArchSpec, layer: Layer, mapping: SystolicMapping, group: GroupTiming,
                 max_cycles: int | None) -> LayerResult:
    """Scale one group's timing to the layer and attach counts, actions and metrics."""
    spec = _spec(arch)
    groups = mapping.groups
    budget = max_cycles if max_cycles is not None else cycle_budget(mapping, arch) * groups
    cycles = group.cycles * groups
    if cycles > budget:
        raise SimulationError(f"{layer.name}: {cycles} cycles exceed the max_cycles guard {budget}")
    sram = {op: count * groups for op, count in sram_accesses(mapping).items()}
    fills = {op: words * groups for op, words in group.dram_read_words.items()}
    drained = group.dram_write_words * groups
    macs = mapping.macs_issued_per_group * groups
    word = arch.word_bits
    actions = [
        ActionCount("dram", "dram", "read", sum(fills.values()), word),
        ActionCount("dram", "dram", "write", drained, word),
        ActionCount("ifmap_sram", "sram", "read", sram["ifmap"], word, spec.ifmap_sram.size),
        ActionCount("ifmap_sram", "sram", "write", fills["ifmap"], word, spec.ifmap_sram.size),
        ActionCount("filter_sram", "sram", "read", sram["filter"], word, spec.filter_sram.size),
        ActionCount("filter_sram", "sram", "write", fills["filter"], word, spec.filter_sram.size),
        ActionCount("ofmap_sram", "sram", "write", sram["ofmap"], word, spec.ofmap_sram.size),
        ActionCount("ofmap_sram", "sram", "read", drained, word, spec.ofmap_sram.size),
        ActionCount("pe_array", "mult_int", "op", macs, word),
        ActionCount("pe_array", "add_int", "op", macs, spec.accumulator_bits),
    ]
    # PE-to-PE forwarding: every issued MAC latches the operands that move through the array:
    # both inputs (OS), or the streamed input and the partial sum (WS, IS).
    if mapping.dataflow.stationary == "ofmap":
        actions.append(ActionCount("pe_array", "register_file", "write", 2 * macs, word))
    else:
        actions.append(ActionCount("pe_array", "register_file", "write", macs, word))
        actions.append(ActionCount("pe_array", "register_file", "write", macs, spec.accumulator_bits))
    # N:M position metadata (SCALE-Sim's ellpack_block: ceil(log2 M) bits per kept weight), fetched
    # once and read with every weight; like SCALE-Sim, it does not change the timing.
    index_bits = metadata_bits(mapping)
    metadata = mapping.gemm.k * mapping.gemm.n * groups if index_bits else 0
    if index_bits:
        actions += [ActionCount("dram", "dram", "read", metadata, index_bits),
                    ActionCount("filter_sram", "sram", "write", metadata, index_bits, spec.filter_sram.size),
                    ActionCount("filter_sram", "sram", "read", sram["filter"], index_bits, spec.filter_sram.size)]
    metadata_bytes = _bytes(metadata, index_bits)
    metrics = {
        "folds": float(mapping.folds * groups),
        "row_folds": float(mapping.row_folds),
        "col_folds": float(mapping.col_folds),
        "mapping_efficiency": mapping.mapping_efficiency,
        "compute_utilization": mapping.compute_utilization,
        "cycles_incl_prefetch": float(group.cycles_incl_prefetch * groups),
    }
    return LayerResult(
        layer=layer.name,
        cycles=cycles,
        compute_cycles=group.compute_cycles * groups,
        stall_cycles=(group.cycles - group.compute_cycles) * groups,
        macs_dense=layer.macs,
        macs_issued=macs,
        peak_macs_per_cycle=spec.rows * spec.cols,
        dram_read_bytes=_bytes(sum(fills.values()), word) + metadata_bytes,
        dram_write_bytes=_bytes(drained, word),
        sram_read_bytes=_bytes(sram["ifmap"] + sram["filter"] + drained, word) + _bytes(sram["filter"], index_bits),
        sram_write_bytes=_bytes(sram["ofmap"] + sum(fills.values()), word) + metadata_bytes,
        actions=tuple(actions),
        metrics=MappingProxyType(metrics),
    )


def simulate_layer(arch: ArchSpec, layer: Layer, max_cycles: int | None = None) -> LayerResult:
    """Fast path: SCALE-Sim-exact cycles from closed forms and vectorised numpy.

    ``max_cycles`` bounds the layer's cycles (default: :func:`cycle_budget`); exceeding it
    raises :class:`accel_sim.errors.SimulationError`.
    """
    mapping = map_layer(_spec(arch), layer)
    return layer_result(arch, layer, mapping, fast_group_timing(arch, layer, mapping), max_cycles)


def simulate_layer_reference(arch: ArchSpec, layer: Layer, max_cycles: int | None = None) -> LayerResult:
    """Per-fold SimPy reference (slow; same results as :func:`simulate_layer`)."""
    from accel_sim.systolic.reference import reference_group_timing

    mapping = map_layer(_spec(arch), layer)
    budget = max_cycles if max_cycles is not None else cycle_budget(mapping, arch) * mapping.groups
    group = reference_group_timing(arch, layer, mapping, max_cycles=budget // mapping.groups)
    return layer_result(arch, layer, mapping, group, budget)
