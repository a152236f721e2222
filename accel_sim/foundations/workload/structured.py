"""Compaction of filter- and channel-pruned layers: the pruned channels leave the layer.

Coarse pruning pays on hardware with no sparsity support because the layer gets smaller
(Mao et al. 2017, "Exploring the granularity of sparsity in CNNs", Sec. 4; Li et al. 2017,
"Pruning filters for efficient ConvNets": a pruned filter and its output feature map are
removed, and with them the next layer's kernels that read that map). Done here, once, on the
layers the pipeline hands to every family (:func:`accel_sim.pipeline.simulate.simulate_many`),
so a systolic array, a tensor core, a SIMT GPU, the DLU and a PE array all run the smaller
dense GEMM, and a sparse family sees the same smaller layer.

A layer with ``weight_pattern`` ``filter`` (output channels) or ``channel`` (input channels),
``weight_density`` d < 1 and ``operands.compact`` (the default) becomes the same layer with
``count_for_density(d, K/g)`` filters per group (or that many input channels per group), its
weights dense (``weight_density`` 1, pattern ``unstructured``): the pruning mask keeps the
same number of whole channels, so the compacted layer is the mask's non-zero part.

Neighbours, along the file's order:

- filter pruning of layer L removes L's output maps, so the next layer that reads them
  loses those input channels: a conv with ``in_channels == K`` (a depthwise conv loses the
  groups as well), an FC / GEMM with ``k == K`` or ``k == K x out_h x out_w`` (flattened
  maps), a vector layer with ``width == K`` (passed through: the chain continues after it);
- channel pruning of layer L removes inputs nobody reads, so the previous layer whose
  output channels are L's inputs loses those filters.

A neighbour whose sizes do not match (a residual branch, a concatenation) is left as it is.
"""
from __future__ import annotations

import dataclasses

from accel_sim.foundations.compress._checks import count_for_density
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import (
    COMPACTABLE_PATTERNS,
    ConvLayer,
    Network,
    NetworkLayer,
    VectorLayer,
)


def compacts(layer: NetworkLayer) -> bool:
    """The layer's pruned filters / channels leave it (``compact`` on, density < 1)."""
    return (not isinstance(layer, VectorLayer) and layer.operands.weight_pattern in COMPACTABLE_PATTERNS
            and layer.operands.compact and layer.weight_density < 1.0)


def kept(density: float, count: int) -> int:
    """Channels of ``count`` that a ``density`` keeps (the masks' rounding rule, at least one)."""
    return max(1, count_for_density(density, count))


def compact_layer(layer: NetworkLayer) -> NetworkLayer:
    """``layer`` with its pruned filters (or input channels) removed; any other layer unchanged."""
    if not compacts(layer):
        return layer
    density, groups = layer.weight_density, getattr(layer, "groups", 1)
    dense = dict(weight_density=1.0, operands=dataclasses.replace(layer.operands, weight_pattern="unstructured"))
    if layer.operands.weight_pattern == "filter":
        if isinstance(layer, ConvLayer):
            return dataclasses.replace(layer, out_channels=groups * kept(density, layer.out_channels // groups), **dense)
        return dataclasses.replace(layer, n=kept(density, layer.n), **dense)
    if isinstance(layer, ConvLayer):
        return dataclasses.replace(layer, in_channels=groups * kept(density, layer.in_channels // groups), **dense)
    return dataclasses.replace(layer, k=kept(density, layer.k), **dense)


def compact_network(network: Network) -> Network:
    """``network`` with every compacting layer shrunk and its neighbours' matching channels removed
    (module doc); the same object when no layer compacts."""
    layers = list(network.layers)
    if not any(compacts(layer) for layer in layers):
        return network
    for i, layer in enumerate(network.layers):
        if not compacts(layer):
            continue
        if layer.operands.weight_pattern == "filter":
            _shrink_readers(layers, i, _outputs(layer), _outputs(compact_layer(layer)), _spatial(layer))
        else:
            _shrink_producer(layers, i, _inputs(layer), _inputs(compact_layer(layer)))
    return dataclasses.replace(network, layers=tuple(compact_layer(layer) for layer in layers))


def _outputs(layer: NetworkLayer) -> int:
    return layer.out_channels if isinstance(layer, ConvLayer) else layer.n


def _inputs(layer: NetworkLayer) -> int:
    return layer.in_channels if isinstance(layer, ConvLayer) else layer.k


def _spatial(layer: NetworkLayer) -> int:
    return layer.out_h * layer.out_w if isinstance(layer, ConvLayer) else 1


def _shrink_readers(layers: list[NetworkLayer], i: int, before: int, after: int, spatial: int) -> None:
    """The layers after ``i`` that read its ``before`` output channels read ``after`` of them."""
    for j in range(i + 1, len(layers)):
        reader = layers[j]
        if isinstance(reader, VectorLayer):
            if reader.width != before:
                return
            layers[j] = dataclasses.replace(reader, width=after)
            continue
        if isinstance(reader, ConvLayer) and reader.in_channels == before:
            _checked_neighbour(reader, layers[i], "channel")
            if reader.is_depthwise:  # its groups go with the channels, and so do its outputs
                per_group = reader.out_channels // reader.groups
                layers[j] = dataclasses.replace(reader, in_channels=after, groups=after, out_channels=per_group * after)
                _shrink_readers(layers, j, reader.out_channels, per_group * after, _spatial(reader))
            else:
                layers[j] = dataclasses.replace(reader, in_channels=after)
        elif not isinstance(reader, ConvLayer) and reader.k in (before, before * spatial):
            _checked_neighbour(reader, layers[i], "channel")
            layers[j] = dataclasses.replace(reader, k=reader.k // before * after)
        return


def _shrink_producer(layers: list[NetworkLayer], i: int, before: int, after: int) -> None:
    """The layer before ``i`` that makes its ``before`` input channels makes ``after`` of them."""
    for j in range(i - 1, -1, -1):
        producer = layers[j]
        if isinstance(producer, VectorLayer):
            if producer.width != before:
                return
            layers[j] = dataclasses.replace(producer, width=after)
            continue
        if _outputs(producer) == before and not (isinstance(producer, ConvLayer) and producer.groups > 1):
            _checked_neighbour(producer, layers[i], "filter")
            field = "out_channels" if isinstance(producer, ConvLayer) else "n"
            layers[j] = dataclasses.replace(producer, **{field: after})
        return


def _checked_neighbour(neighbour: NetworkLayer, pruned: NetworkLayer, clashing: str) -> None:
    """A neighbour whose shape changes must have generated operands and must not prune the same
    channels itself (a filter-pruned layer followed by a channel-pruned one)."""
    if neighbour.operands.payload:
        raise InputError.single(pruned.name, "compact", f"removing channels of {pruned.name} would change the "
                                f"shape of {neighbour.name}, whose operands come from a payload; set compact: false")
    if compacts(neighbour) and neighbour.operands.weight_pattern == clashing:
        raise InputError.single(neighbour.name, "weight_pattern", f"'{clashing}' prunes the channels that "
                                f"{pruned.name}'s pruning already removes; prune them in one of the two layers")
