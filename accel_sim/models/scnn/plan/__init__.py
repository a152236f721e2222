"""Plan of one layer on the SCNN array (pure numpy), shared by the fast path and the reference.

One module per concern, each citing its paper facts:

- :mod:`.designs`: the paper's comparison designs (Table 6) as flags on one PE array;
- :mod:`.operands`: the layer's weights and inputs in the conv view, and its ReLU outputs;
- :mod:`.tiling`: planar tiles (one per PE), temporal tiles, channel chunks, Kc and groups;
- :mod:`.temporal_tiling`: the fewest passes whose input tiles fit the IARAM;
- :mod:`.encoding`: zero-run block storage (Fig. 7) of activation tiles and weight blocks;
- :mod:`.bank_mapping`: which accumulator bank holds a partial sum.

:func:`plan` runs them once per layer; the :class:`Plan` holds everything both counting
paths and the accounting need. What the plan does not decide (the work of each step, bank
conflicts, barriers, drains, DRAM traffic, the dense baseline's work) each path computes on
its own.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.contract import BatchMemo
from accel_sim.models.scnn.plan.designs import DESIGN_TRAITS, DesignTraits
from accel_sim.models.scnn.plan.encoding import chunk_storage_bits, plane_storage_bits, weight_storage_bits
from accel_sim.models.scnn.plan.nonzeros import weight_nonzeros
from accel_sim.models.scnn.plan.operands import (conv_inputs, conv_weights, fc_nonzero_mask, fc_nonzeros, layer_outputs,
                                          sparse_fc)
from accel_sim.models.scnn.plan.keys import encoding_key, spec_key, tiling_key
from accel_sim.models.scnn.plan.temporal_tiling import fitting_tiling
from accel_sim.models.scnn.plan.tiling import ConvView, Tiling, conv_view
from accel_sim.models.scnn.spec import SCNNSpec
from accel_sim.foundations.workload.layer import Layer
from accel_sim.foundations.workload.operands import layer_operands


@dataclass(frozen=True)
class Lazy:
    """A :class:`Plan` field's value made on its first read (``make()``): an FC layer's full-size
    weights and mask, which only the reference and a few designs read."""

    make: Callable[[], np.ndarray]


@dataclass(frozen=True)
class Plan:
    """One layer planned on one SCNN-family arch. Arrays of bits are in the operand's on-chip
    format (``chip``: compressed iff the design skips that operand's zeros) or its DRAM format
    (``dram``: compressed iff skipped or ``compress_dram``)."""

    layer: Layer
    spec: SCNNSpec
    traits: DesignTraits
    view: ConvView
    tiling: Tiling             # dense designs: one group of all output channels
    value_bits: int
    weights: np.ndarray        # (groups, Kg, Cg, R, S)
    inputs: np.ndarray         # (batch, groups, Cg, H, W)
    weight_mask: np.ndarray    # weights the multipliers see (non-zeros if skipped, else all)
    input_mask: np.ndarray     # activations the multipliers see
    input_bits: np.ndarray     # (batch, groups, temporal tiles, channel chunks, PEs) chip bits of the input tiles
    output_bits: np.ndarray    # (batch, groups, temporal tiles, PEs) chip bits of the owned output tiles
    output_dram_bits: np.ndarray  # (batch, groups, temporal tiles) DRAM bits of the output tiles
    weight_chip_bits: np.ndarray  # (groups, channel chunks) chip (weight-FIFO) bits of each chunk's weights
    weight_dram_bits: np.ndarray  # (groups, channel chunks) DRAM bits of each chunk's weights
    operand_hashes: Mapping[str, str]
    memo: BatchMemo            # pieces shared with the other archs of the run on this layer (the fast path's too)

    def __post_init__(self):
        object.__setattr__(self, "_mask_nonzeros", {})   # per conv group; a replaced plan starts empty
        lazy = {name: value for name, value in vars(self).items() if isinstance(value, Lazy)}
        for name in lazy:   # read through __getattr__: made on first read
            del self.__dict__[name]
        object.__setattr__(self, "_lazy", lazy)

    def __getattr__(self, name: str):
        lazy = self.__dict__.get("_lazy", {})
        if name not in lazy:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        value = lazy[name].make()
        object.__setattr__(self, name, value)
        return value

    def weight_counts(self) -> np.ndarray:
        """``weight_mask.sum(axis=1)``: (groups, Cg, R, S) weights the multipliers see per channel and
        tap; counted from the mask's non-zeros when the plan holds them (the mask is not made)."""
        groups, channels, kernel_h, kernel_w = self.view.groups, self.view.channels, self.view.r, self.view.s
        if not all(g in self._mask_nonzeros for g in range(groups)):
            return self.weight_mask.sum(axis=1, dtype=np.int64)
        taps = channels * kernel_h * kernel_w
        counts = np.zeros((groups, taps), dtype=np.int64)
        for g in range(groups):
            _, c, r, s = (v.astype(np.int64, copy=False) for v in self._mask_nonzeros[g])
            counts[g] = np.bincount((c * kernel_h + r) * kernel_w + s, minlength=taps)
        return counts.reshape(groups, channels, kernel_h, kernel_w)

    def mask_nonzeros(self, conv_group: int) -> tuple[np.ndarray, ...]:
        """(k, c, r, s) of ``weight_mask[conv_group]``'s true entries (:func:`.nonzeros.weight_nonzeros`),
        found once per plan."""
        found = self._mask_nonzeros.get(conv_group)
        if found is None:
            found = self._mask_nonzeros[conv_group] = weight_nonzeros(self.weight_mask[conv_group])
        return found

    @property
    def dcnn(self) -> bool:
        """A dense dot-product design (DCNN, DCNN-opt)."""
        return not self.traits.cartesian

    def input_dram_bits(self, image: int, conv_group: int) -> np.ndarray:
        """(temporal tiles, channel chunks) DRAM bits of one image's input tiles (computed on demand:
        only layers streamed through DRAM move them)."""
        chip = self.input_bits[image, conv_group].sum(axis=2)
        if self.traits.skip_activations or not self.traits.compress_dram:
            return chip
        return chunk_storage_bits(self.tiling, self.spec, self.inputs[image, conv_group], True,
                                  self.value_bits).sum(axis=2)


def _output_bits(spec: SCNNSpec, tiling: Tiling, outputs: np.ndarray, compressed: bool,
                 value_bits: int) -> np.ndarray:
    """(batch, groups, temporal tiles, PEs) bits of the owned output tiles."""
    return np.stack([np.stack([plane_storage_bits(tiling, spec, plane, compressed, value_bits, owned=True)
                               for plane in image]) for image in outputs])


def plan(arch: ArchBase, layer: Layer, memo: BatchMemo | None = None) -> Plan:
    """``memo``: the pieces the run's other archs share on this layer (a fresh one: none shared). Keys name
    everything a piece is computed from (:func:`~.keys.spec_key`, :func:`~.keys.tiling_key`, the design
    traits it reads)."""
    spec: SCNNSpec = arch.section("scnn")
    traits = DESIGN_TRAITS[spec.design]
    view = conv_view(layer, spec.fc_layout)
    memo = BatchMemo() if memo is None else memo
    memo.enter(layer)   # the previous layer's shared pieces go before this layer's operands come
    inputs = conv_inputs(layer, spec.fc_layout)
    key, tiles = spec_key(spec), (traits.cartesian, traits.skip_activations, arch.word_bits)
    weights_dram_compressed = traits.skip_weights or traits.compress_dram
    shape = (view.groups, view.out_channels, view.channels, view.r, view.s)
    if sparse_fc(layer, spec.fc_layout):   # the full-size weights and their mask only if read
        weights = Lazy(lambda: conv_weights(layer, spec.fc_layout))
        nonzeros = memo.get(layer, ("weight non-zeros", spec.fc_layout), lambda: (fc_nonzeros(layer),)) \
            if weights_dram_compressed else None
        nonzero = None if nonzeros is None else Lazy(lambda: memo.get(
            layer, ("weights != 0", spec.fc_layout), lambda: fc_nonzero_mask(layer, nonzeros[0])))
        weight_mask = nonzero if traits.skip_weights else Lazy(lambda: np.ones(shape, dtype=bool))
    else:
        weights = conv_weights(layer, spec.fc_layout)
        nonzero = memo.get(layer, ("weights != 0", spec.fc_layout), lambda: weights != 0) \
            if weights_dram_compressed else None
        weight_mask = nonzero if traits.skip_weights else np.ones(shape, dtype=bool)
        nonzeros = None if nonzero is None else memo.get(layer, ("weight non-zeros", spec.fc_layout),
                                                       lambda: tuple(weight_nonzeros(mask) for mask in nonzero))
    input_mask = memo.get(layer, ("inputs != 0", spec.fc_layout), lambda: inputs != 0) if traits.skip_activations \
        else np.ones(inputs.shape, dtype=bool)
    outputs = layer_outputs(layer)
    if spec.dram_tile_order == "min_traffic":   # the DRAM traffic it minimises depends on every format
        tiles += (traits.skip_weights, traits.compress_dram)
    tiling, input_bits = memo.get(layer, ("tiling", key, tiles),
                                lambda: fitting_tiling(arch, spec, traits, view, layer, inputs, weights, nonzeros,
                                                       outputs))
    if not traits.cartesian:
        tiling = dataclasses.replace(tiling, kc=view.out_channels, out_groups=1)
    value_bits = arch.word_bits
    at = (encoding_key(spec), tiling_key(tiling), value_bits)   # the encoders' settings

    def output_bits_of(compressed: bool) -> np.ndarray:
        return memo.get(layer, ("output bits", at, compressed),
                      lambda: _output_bits(spec, tiling, outputs, compressed, value_bits))

    def weight_bits_of(compressed: bool) -> np.ndarray:
        return memo.get(layer, ("weight bits", at, compressed), lambda: np.stack(
            [weight_storage_bits(spec, view, tiling, weights[g] if compressed and nonzeros is None else None,
                                 compressed, value_bits, None if nonzeros is None else nonzeros[g])
             for g in range(view.groups)]))

    output_bits = output_bits_of(traits.skip_activations)
    activations_dram_compressed = traits.skip_activations or traits.compress_dram
    output_dram_bits = (output_bits if activations_dram_compressed == traits.skip_activations else
                        output_bits_of(activations_dram_compressed)).sum(axis=3)
    weight_chip_bits = weight_bits_of(traits.skip_weights)
    weight_dram_bits = weight_chip_bits if weights_dram_compressed == traits.skip_weights else \
        weight_bits_of(weights_dram_compressed)
    planned = Plan(layer, spec, traits, view, tiling, value_bits, weights, inputs, weight_mask, input_mask,
                   input_bits, output_bits, output_dram_bits, weight_chip_bits, weight_dram_bits,
                   MappingProxyType(layer_operands(layer).hashes), memo)
    if traits.skip_weights:   # the mask is the weights' non-zeros: found once, for the encoders and the fast path
        planned._mask_nonzeros.update(enumerate(nonzeros))
    return planned
