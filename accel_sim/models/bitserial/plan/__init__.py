"""Plan of a bit-serial layer (pure numpy): the tiles' step order and the operands of every step.

DaDianNao-style tiling, as DNNsim's ``WindowFirstOutS`` dataflow lays it out (isakedo/DNNsim 4748a60,
core/src/OutputStationary.cpp, WindowFirstOutS.cpp; the Stripes and Pragmatic papers' 16-tile organisation):

- a layer is cut into **passes** (one per convolution group and image), each into **window sets** of
  ``columns`` output windows (row-major, height fastest), the filters into **filter sets** of ``rows``
  filters, and the filter sets into **chunks** of ``tiles`` sets: tile ``t`` of chunk ``k`` computes set
  ``k * tiles + t``;
- a window's reduction is ``T = ceil(C / lanes) * R * S`` **lines** of ``lanes`` channels, ordered kernel
  column (outer), kernel row, channel brick (inner); a missing channel is zero;
- steps run pass -> window set -> chunk -> line. Without Bit-Tactical every tile issues line ``i`` at
  call ``i``; with it each tile walks its own scheduled buffer (:mod:`.tactical`) issuing one
  non-skipped line per call, and a chunk takes as many calls as its busiest tile has lines.

Operands: integer tensors are taken as 16-bit fixed-point integers (DNNsim's ``quantised: true``);
real-valued tensors are quantised linearly to the layer's precision (largest magnitude on the top code).
The layer's precisions are ``activation_bits`` / ``weight_bits`` of the workload, else ``pe_width``.
Storage: one value per ``word_bits`` word, or with ``packed_storage`` the values packed at the layer's
precision (hsharma35/bitfusion 04ec1c8, bitfusion/src/optimizer/optimizer.py:55-73, 209-228: buffer and
DRAM traffic in values x iprec / wprec bits): ``n`` values take ceil(n x bits / word_bits) words.
Outputs are written at ``output_bits`` (16: one word each; Bit Fusion's simulator writes 32-bit outputs,
hsharma35/bitfusion 04ec1c8, optimizer.py:75-77, 169): ceil(output_bits / word_bits) words per output.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Mapping

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.contract import BatchMemo
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import ConvLayer, Layer
from accel_sim.foundations.workload.operands import input_shape, layer_operands, weight_shape
from accel_sim.models.bitserial.plan.tactical import schedule, search_offsets
from accel_sim.models.bitserial.spec import BitSerialSpec

WORD_RANGE = (-(1 << 15), (1 << 15) - 1)   # values are held as 16-bit two's complement words
_HEAD = 1024   # values fixed_point looks at first to tell a real tensor from an integer one
_BLOCK = 1 << 18   # values fixed_point quantises at a time


def _made_read_only(make: Callable[[], np.ndarray]) -> np.ndarray:
    array = make()
    array.flags.writeable = False
    return array


@dataclass(frozen=True)
class Pass:
    """The window sets of one convolution group of one image. The activations are made on first use: a design
    whose step costs never look at a value (DaDianNao, Stripes, Bit Fusion) needs only which windows exist."""

    group: int
    present: np.ndarray   # (window sets, columns) bool: the window exists
    make_acts: Callable[[], np.ndarray] = field(repr=False, compare=False)

    @cached_property
    def acts(self) -> np.ndarray:
        """(window sets, T, columns, lanes) int32: each slot's activation (Diffy: its delta), read-only."""
        return _made_read_only(self.make_acts)


@dataclass(frozen=True)
class Chunk:
    """The filter sets the tiles compute together; ``tiles`` = the sets present (<= spec.tiles). Without
    Bit-Tactical the weights are made on first use (the slots, lines and filters follow from the shapes)."""

    source_step: np.ndarray  # (tiles, T, rows, lanes): the line whose activation a slot multiplies
    source_lane: np.ndarray  # (tiles, T, rows, lanes): the lane whose activation a slot multiplies
    real: np.ndarray         # (tiles, T, rows, lanes) bool: the slot holds a weight of the layer
    filters: np.ndarray      # (tiles, rows) bool: the filter row holds a filter
    lines: np.ndarray        # (calls, tiles) int64: the line each tile issues in each call, -1: none
    make_weights: Callable[[], np.ndarray] = field(repr=False, compare=False)

    @cached_property
    def weights(self) -> np.ndarray:
        """(tiles, T, rows, lanes) int32: the weight in each slot (Tactical: scheduled), read-only."""
        return _made_read_only(self.make_weights)


@dataclass(frozen=True)
class BitSerialPlan:
    arch: ArchBase
    spec: BitSerialSpec
    layer: Layer
    act_bits: int                          # p_a: the layer's activation precision
    wgt_bits: int                          # p_w: the layer's weight precision
    steps_per_window: int                  # T
    real_lanes: np.ndarray                 # (T, lanes) bool: the slot carries a channel of the layer
    passes: tuple[Pass, ...]
    chunks: tuple[tuple[Chunk, ...], ...]  # per group
    operand_hashes: Mapping[str, str]
    make_signs: Callable[[], tuple[bool, bool]] = field(repr=False, compare=False)   # read from the values

    @cached_property
    def act_signed(self) -> bool:
        """Activations hold negative values (or Diffy deltas)."""
        return self.make_signs()[0]

    @cached_property
    def wgt_signed(self) -> bool:
        """Weights hold negative values."""
        return self.make_signs()[1]

    def stored_words(self, values: int, bits: int) -> int:
        """Words holding ``values`` values of ``bits`` bits: one each, or packed (``packed_storage``)."""
        if not self.spec.packed_storage:
            return values
        return -(-values * bits // self.arch.word_bits)

    @property
    def output_value_words(self) -> int:
        """Words one output is written in: ceil(output_bits / word_bits)."""
        return -(-self.spec.output_bits // self.arch.word_bits)

    @property
    def activation_line_words(self) -> int:
        """Buffer words of one window's line of ``lanes`` activations."""
        return self.stored_words(self.spec.lanes, self.act_bits)

    @property
    def weight_line_words(self) -> int:
        """Buffer words of one filter's line of ``lanes`` weights."""
        return self.stored_words(self.spec.lanes, self.wgt_bits)

    @property
    def fusion_cycles(self) -> int:
        """bitfusion: cycles of one step. Each operand fuses ``fused_bricks`` BitBricks wide (its precision
        rounded up to a power of two, at least one brick: 2 / 4 / 8 / 16 bits), a product needs the product
        of the two, and a step's ``lanes`` products share the PE's ``bricks`` (Sharma et al., ISCA 2018)."""
        spec = self.spec
        per_product = fused_bricks(self.act_bits, spec.brick_bits) * fused_bricks(self.wgt_bits, spec.brick_bits)
        return -(-spec.lanes * per_product // spec.bricks)


def fused_bricks(bits: int, brick_bits: int) -> int:
    """BitBricks along one operand: ``bits`` rounded up to ``brick_bits`` x a power of two, in bricks."""
    bricks = -(-bits // brick_bits)
    return 1 << (bricks - 1).bit_length()


@dataclass(frozen=True)
class FixedPoint:
    """How a tensor becomes its fixed-point codes (:func:`fixed_rule`)."""

    scale: float | None   # real values: code = rint(value x scale); None: integers, kept as they are
    negative: bool        # a code is negative

    def codes(self, values: np.ndarray) -> np.ndarray:
        """The codes of ``values`` (a block of the tensor), in its float type: written into int32 exactly."""
        if self.scale is None:
            return values
        scaled = values * self.scale
        return np.rint(scaled, out=scaled)


def fixed_rule(values: np.ndarray, bits: int) -> FixedPoint:
    """Integers as they are (16-bit words); real values quantised to ``bits`` (signed if any is negative), the
    largest magnitude on the top code. A tensor whose first values are not all integers is real without a pass
    over the rest."""
    head = values.flat[:_HEAD]
    if np.array_equal(np.rint(head), head):
        rounded = np.rint(values)
        if np.array_equal(rounded, values) and (values.size == 0 or (rounded.min() >= WORD_RANGE[0]
                                                                      and rounded.max() <= WORD_RANGE[1])):
            return FixedPoint(None, bool(values.size and rounded.min() < 0))
    low, high = values.min(), values.max()
    signed = bool(low < 0)
    top = (1 << (bits - signed)) - 1
    peak = float(max(-low, high))   # the largest magnitude: |x| is exact, so max |x| = max(-min, max)
    rule = FixedPoint(top / peak if peak else 0.0, False)
    # rint(x * scale) grows with x: the lowest code is the lowest value's (computed as the tensor's are)
    return FixedPoint(rule.scale, bool(rule.codes(np.asarray([low], dtype=values.dtype))[0] < 0))


def fixed_point(values: np.ndarray, bits: int, rule: FixedPoint | None = None) -> np.ndarray:
    """The codes of ``values`` (``rule``, by default :func:`fixed_rule`'s), int32 (|code| < 2^16), block by block
    (no full-size temporary)."""
    rule = fixed_rule(values, bits) if rule is None else rule
    codes = np.empty(values.shape, np.int32)
    flat, out = values.reshape(-1), codes.reshape(-1)
    for start in range(0, flat.size, _BLOCK):
        out[start:start + _BLOCK] = rule.codes(flat[start:start + _BLOCK])
    return codes


def _precision(layer: Layer, field: str, spec: BitSerialSpec) -> int:
    bits = getattr(layer, field)
    if bits is None:
        return spec.pe_width
    if not 1 <= bits <= spec.pe_width:
        raise InputError.single(f"layer {layer.name}", field, f"{bits} bits: the {spec.design} datapath takes "
                                f"1 to {spec.pe_width} bits (bitserial.pe_width)")
    return bits


def _conv_view(layer: Layer, inputs: np.ndarray, weights: np.ndarray):
    """(inputs (N, C, H, W), weights (K, C/g, R, S), groups, stride, padding) of a conv or GEMM layer."""
    if isinstance(layer, ConvLayer):
        return (inputs, weights, layer.groups, (layer.stride_h, layer.stride_w),
                ((layer.pad_top, layer.pad_bottom), (layer.pad_left, layer.pad_right)))
    # a GEMM: m one-pixel windows along the height, k channels, n filters
    return inputs.T[None, :, :, None], weights.T[:, :, None, None], 1, (1, 1), ((0, 0), (0, 0))


def _wrap16(values: np.ndarray) -> np.ndarray:
    return ((values + (1 << 15)) & 0xFFFF) - (1 << 15)


def window_sets(hp: int, wp: int, kernel: tuple[int, int], stride: tuple[int, int], columns: int
                ) -> tuple[int, int, np.ndarray]:
    """``(out_h, out_w, present (WS, columns))`` of a padded image ``Hp x Wp``: its windows in sets of ``columns``."""
    (r_max, s_max), (sh, sw) = kernel, stride
    out_h, out_w = (hp - r_max) // sh + 1, (wp - s_max) // sw + 1
    sets = math.ceil(out_h * out_w / columns)
    return out_h, out_w, (np.arange(sets * columns) < out_h * out_w).reshape(sets, columns)


def window_buffer(padded: np.ndarray, kernel: tuple[int, int], stride: tuple[int, int], lanes: int,
                  columns: int, diffy: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(acts (WS, T, columns, lanes), present (WS, columns))`` of one padded image ``(C, Hp, Wp)``."""
    channels, hp, wp = padded.shape
    (r_max, s_max), (sh, sw) = kernel, stride
    out_h, out_w, present = window_sets(hp, wp, kernel, stride, columns)
    windows = out_h * out_w
    x = np.arange(windows) % out_h          # window row (DNNsim's x, the height axis, fastest)
    y = np.arange(windows) // out_h
    bricks = math.ceil(channels / lanes)
    sets = present.shape[0]
    buf = np.zeros((s_max * r_max, sets * columns, bricks * lanes), dtype=np.int32)
    for s in range(s_max):
        for r in range(r_max):
            vals = padded[:, x * sh + r, y * sw + s]                     # (C, windows)
            if diffy:
                prev = np.where(x > 0, padded[:, np.maximum(x * sh + r - sh, 0), y * sw + s], 0)
                vals = _wrap16(vals - prev)
            buf[s * r_max + r, :windows, :channels] = vals.T
    # line t = (s * R + r) * bricks + brick
    lines = buf.reshape(s_max * r_max, sets * columns, bricks, lanes).transpose(0, 2, 1, 3)
    acts = lines.reshape(-1, sets, columns, lanes).transpose(1, 0, 2, 3)
    return np.ascontiguousarray(acts), present


def weight_buffer(weights: np.ndarray, rows: int, lanes: int, rule: FixedPoint = FixedPoint(None, False)
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(values (FS, T, rows, lanes), filters (FS, rows))`` of one group's weights ``(K, C, R, S)``, as ``rule``'s
    codes (default: integers as they are)."""
    filters, channels, r_max, s_max = weights.shape
    bricks = math.ceil(channels / lanes)
    sets = math.ceil(filters / rows)
    # line t = (s * R + r) * bricks + brick: the buffer (FS, S, R, bricks, rows, lanes) is written through a view
    # in the weights' order (FS, rows, bricks, lanes, R, S), per part (whole sets / the last one, whole bricks /
    # the last one) in blocks along its first axis; the rest stays 0
    out = np.zeros((sets, s_max, r_max, bricks, rows, lanes), dtype=np.int32)
    view = out.transpose(0, 4, 3, 5, 2, 1)
    for k_index, k_shape, k_range in _parts(filters, rows):
        for c_index, c_shape, c_range in _parts(channels, lanes):
            part = weights[k_range, c_range].reshape(k_shape + c_shape + (r_max, s_max))
            target = view[k_index + c_index]
            step = max(1, _BLOCK // max(1, part[0].size))
            for start in range(0, part.shape[0], step):
                target[start:start + step] = rule.codes(part[start:start + step])
    values = out.reshape(sets, s_max * r_max * bricks, rows, lanes)
    present = (np.arange(sets * rows) < filters).reshape(sets, rows)
    return values, present


def _parts(count: int, size: int):
    """(index of the (blocks, size) axes, shape of the items there, items' range) of ``count`` items in blocks of
    ``size``: the whole blocks, then the last partial one (each only if it holds items)."""
    whole, rest = divmod(count, size)
    if whole:
        yield (slice(0, whole), slice(None)), (whole, size), slice(0, whole * size)
    if rest:
        yield (whole, slice(0, rest)), (rest,), slice(whole * size, count)


def _chunks(spec: BitSerialSpec, buffer: Callable[[], np.ndarray], present: np.ndarray, real: np.ndarray
            ) -> tuple[Chunk, ...]:
    """The chunks of one group's weight buffer ``buffer()`` ``(FS, T, rows, lanes)`` (:func:`weight_buffer`; made
    only when a chunk's weights are read, or at once with Bit-Tactical, whose schedule reads them)."""
    (sets, rows), (steps, lanes) = present.shape, real.shape
    if spec.tactical:
        slots = present[:, None, :, None] & real[None, :, None, :]
        offsets = search_offsets(spec.search_shape, spec.lookahead_h, spec.lookaside_d)
        plan = schedule(buffer(), slots, spec.lookahead_h, offsets)
        vals, src_t, src_l = (a.astype(np.int32) for a in (plan.values, plan.source_step, plan.source_lane))
        held, issued = plan.real, plan.issued

        def weights_of(part: slice) -> np.ndarray:
            return vals[part]
    else:   # every weight in its own slot: per chunk, one (T, lanes) pattern over its filter rows (see _slotted)

        def weights_of(part: slice) -> np.ndarray:
            return buffer()[part]
        step_of = np.where(real, np.arange(steps, dtype=np.int32)[:, None], np.int32(0))
        lane_of = np.where(real, np.arange(lanes, dtype=np.int32)[None, :], np.int32(0))
        issued = np.ones((sets, steps), dtype=bool)
    out = []
    for start in range(0, sets, spec.tiles):
        part = slice(start, min(start + spec.tiles, sets))
        counts = issued[part].sum(axis=1)
        lines = np.full((int(counts.max()), len(counts)), -1, dtype=np.int64)
        for tile, row in enumerate(issued[part]):
            lines[:counts[tile], tile] = np.flatnonzero(row)
        if spec.tactical:
            sources = src_t[part], src_l[part], held[part]
        else:
            sources = tuple(_slotted(pattern, present[part], zero) for pattern, zero in
                            ((step_of, np.int32(0)), (lane_of, np.int32(0)), (real, False)))
        out.append(Chunk(*sources, present[part], lines, functools.partial(weights_of, part)))
    return tuple(out)


def _slotted(pattern: np.ndarray, filters: np.ndarray, zero) -> np.ndarray:
    """``pattern`` ``(T, lanes)`` in every present filter row of a chunk, ``zero`` in the others: ``(tiles, T, rows,
    lanes)``; a read-only view of ``pattern`` when every row holds a filter."""
    shape = (filters.shape[0], pattern.shape[0], filters.shape[1], pattern.shape[1])
    if filters.all():
        return np.broadcast_to(pattern[None, :, None, :], shape)
    return np.where(filters[:, None, :, None], pattern[None, :, None, :], zero)


def plan(arch: ArchBase, layer: Layer, memo: BatchMemo | None = None) -> BitSerialPlan:
    """The layer's window sets and filter chunks. ``memo``: the operands in fixed point, the window buffers
    and the filter chunks shared with the run's other archs on this layer; each is kept under every setting
    it is computed from (the designs of one run differ mostly in what a step costs, not in these)."""
    spec: BitSerialSpec = arch.section("bitserial")
    memo = BatchMemo() if memo is None else memo
    act_bits, wgt_bits = _precision(layer, "activation_bits", spec), _precision(layer, "weight_bits", spec)
    ops = layer_operands(layer)

    def fixed_inputs() -> tuple[np.ndarray, bool]:   # the values are read (made) only when a step cost needs them
        return memo.get(layer, ("inputs", act_bits), lambda: _signed_fixed(ops.inputs, act_bits))

    def weight_rule() -> FixedPoint:
        return memo.get(layer, ("weights", wgt_bits), lambda: fixed_rule(ops.weights, wgt_bits))

    # the conv view of zero-stride stand-ins of the operands' shapes: the plan's geometry without a value
    stand_ins = tuple(np.broadcast_to(np.int32(0), shape(layer)) for shape in (input_shape, weight_shape))
    viewed = _conv_view(layer, *stand_ins)
    (images, channels, height, width), (filters, _, *kernel), groups, stride, padding = (
        viewed[0].shape, viewed[1].shape, *viewed[2:])
    cg, kg, kernel = channels // groups, filters // groups, tuple(kernel)
    tactical = (spec.search_shape, spec.lookahead_h, spec.lookaside_d) if spec.tactical else None
    chunks, real = memo.get(layer, ("chunks", wgt_bits, spec.rows, spec.lanes, spec.tiles, tactical),
                            lambda: _group_chunks(spec, lambda: _conv_view(layer, stand_ins[0], ops.weights)[1],
                                                  weight_rule, groups, cg, kg, kernel))   # weights: as generated
    passes = memo.get(layer, ("passes", act_bits, spec.lanes, spec.columns, spec.diffy),
                      lambda: _passes(spec, lambda: _conv_view(layer, fixed_inputs()[0], stand_ins[1])[0], groups, cg,
                                      (images, height, width, kernel, stride, padding)))
    return BitSerialPlan(arch, spec, layer, act_bits, wgt_bits, int(real.shape[0]), real, passes, chunks,
                         MappingProxyType(dict(ops.hashes)),
                         lambda: (spec.diffy or fixed_inputs()[1], weight_rule().negative))


def _signed_fixed(values: np.ndarray, bits: int) -> tuple[np.ndarray, bool]:
    """:func:`fixed_point` of ``values`` and whether it holds a negative value."""
    rule = fixed_rule(values, bits)
    return fixed_point(values, bits, rule), rule.negative


def _group_chunks(spec: BitSerialSpec, weights: Callable[[], np.ndarray], rule: Callable[[], FixedPoint], groups: int,
                  cg: int, kg: int, kernel: tuple[int, int]) -> tuple[tuple[tuple[Chunk, ...], ...], np.ndarray]:
    """(the chunks of every group, real: (T, lanes) the slot carries a channel) of weights ``(K, C/g, R, S)``
    (``weights()``, in ``rule()``'s codes: read when a chunk needs them)."""
    bricks = math.ceil(cg / spec.lanes)
    t = np.arange(math.prod(kernel) * bricks) % bricks
    real = (t[:, None] * spec.lanes + np.arange(spec.lanes)[None, :]) < cg
    sets = math.ceil(kg / spec.rows)
    present = (np.arange(sets * spec.rows) < kg).reshape(sets, spec.rows)   # weight_buffer's filters
    chunks = []
    for g in range(groups):
        buffer = functools.cache(lambda g=g: weight_buffer(weights()[g * kg:(g + 1) * kg], spec.rows, spec.lanes,
                                                           rule())[0])
        chunks.append(_chunks(spec, buffer, present, real))
    return tuple(chunks), real


def _passes(spec: BitSerialSpec, inputs: Callable[[], np.ndarray], groups: int, cg: int, geometry) -> tuple[Pass, ...]:
    """The window sets of every (group, image) of inputs ``(N, C, H, W)`` (``inputs()``: read when a pass's
    activations are), group by group; ``geometry``: (N, H, W, kernel, stride, padding)."""
    images, height, width, kernel, stride, padding = geometry
    (top, bottom), (left, right) = padding
    present = window_sets(height + top + bottom, width + left + right, kernel, stride, spec.columns)[2]

    def acts(g: int, image: int) -> np.ndarray:
        padded = np.pad(inputs()[image, g * cg:(g + 1) * cg], ((0, 0), *padding))
        return window_buffer(padded, kernel, stride, spec.lanes, spec.columns, spec.diffy)[0]

    return tuple(Pass(g, present, functools.partial(acts, g, image)) for g in range(groups) for image in range(images))


def work_elements(arch: ArchBase, layer: Layer) -> int:
    """Values the plan holds: the window buffer (every window's lines) and the weight buffers."""
    spec: BitSerialSpec = arch.section("bitserial")
    g = layer.gemm()
    lanes_k = math.ceil(g.k / spec.lanes) * spec.lanes
    windows = math.ceil(g.m / spec.columns) * spec.columns
    return g.groups * (windows * lanes_k + math.ceil(g.n / spec.rows) * spec.rows * lanes_k * 3)
