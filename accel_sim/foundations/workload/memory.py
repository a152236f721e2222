"""Device memory a network needs: resident weights, the KV cache and the live activations.

A run whose footprint exceeds the device's ``memory_capacity`` is a wrong answer (the device could
not hold it), so :func:`accel_sim.pipeline.simulate.simulate` refuses it. The count, per byte:

- **weights**: every layer's k x n operand that is a model weight, at its stored width
  (``quantized_weight_bits``, else ``weight_bits``, else the arch's word), plus the network's
  ``memory.other_weight_elements`` (parameters no simulated layer reads: token and position
  embeddings, norm gains; :mod:`accel_sim.foundations.workload.llm.memory` counts them for an LLM).
  N:M-sparse weights keep N of every M values plus ceil(log2 M) bits of position per kept value
  (2 bits for 2:4: the metadata of NVIDIA's sparse tensor cores, A100 whitepaper). Group-wise quantization
  scales add ``quant_scale_bits / quant_group_size`` bits a weight (32 / 64 = 0.5 for tinygemm's bf16 scale and
  zero per 64 weights). Unstructured
  sparse weights are counted dense (dense kernels store them dense; a compressed format is smaller);
- **KV cache**: the k x n operand of the attention GEMMs (``attn_score``: the K cache,
  ``attn_context``: the V cache), at its stored width (``--kv-bits``);
- **activations**: the largest input + output of one layer at the word width (inference frees a
  layer's input once the next layer has its output; the residual stream is one of those inputs).
  A floor: frameworks keep workspace and allocator slack that no file states.

With a ``memory.batch`` the KV cache and activations scale with the batch (every layer's rows and
attention instances are B x something), so the largest batch that fits is
``floor((capacity - weights) / (KV + activations per sequence))``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from accel_sim.foundations.workload.layer import Network, NetworkLayer, ResidentMemory, VectorLayer, group_scale_bits

KV_CACHE_LAYERS = ("attn_score", "attn_context", "attn_decode")  # their k x n operand is the K / V cache (attn_decode: both)
GB = 1e9  # the decimal gigabyte of the messages (a datasheet's "40 GB" of HBM is 40 GiB: both are printed)


@dataclass(frozen=True)
class Footprint:
    """Bytes of device memory one step needs, by role."""

    weights_bytes: float
    kv_cache_bytes: float
    activation_bytes: float
    batch: int | None = None

    @property
    def total_bytes(self) -> float:
        return self.weights_bytes + self.kv_cache_bytes + self.activation_bytes

    @property
    def per_sequence_bytes(self) -> float | None:
        """KV cache and activations of one sequence (None: the batch is not stated)."""
        return None if not self.batch else (self.kv_cache_bytes + self.activation_bytes) / self.batch

    def largest_batch(self, capacity_bytes: float) -> int | None:
        """The largest batch whose footprint fits ``capacity_bytes`` (0: not even the weights and one
        sequence fit; None: the batch is not stated)."""
        per = self.per_sequence_bytes
        if per is None:
            return None
        if per == 0:
            return self.batch if self.weights_bytes <= capacity_bytes else 0
        return max(0, math.floor((capacity_bytes - self.weights_bytes) / per))

    def fits(self, capacity_bytes: float | None) -> bool:
        return capacity_bytes is None or self.total_bytes <= capacity_bytes

    def describe(self) -> str:
        return (f"{self.total_bytes / GB:.2f} GB (weights {self.weights_bytes / GB:.2f} GB, KV cache "
                f"{self.kv_cache_bytes / GB:.2f} GB, activations {self.activation_bytes / GB:.2f} GB)")


def stored_weight_bits(layer: NetworkLayer, word_bits: int) -> float:
    """Bits one weight (k x n element) of ``layer`` occupies in device memory, metadata and group-wise
    quantization scales included (``quant_scale_bits`` per ``quant_group_size`` weights along k)."""
    bits = layer.quantized_weight_bits or layer.weight_bits or word_bits
    scales = group_scale_bits(layer) / layer.quant_group_size if getattr(layer, "quant_group_size", None) else 0.0
    if layer.weight_sparsity is not None:
        nm = layer.weight_sparsity
        return nm.density * (bits + math.ceil(math.log2(nm.m)) if nm.m > 1 else bits) + scales
    return bits + scales


def network_footprint(network: Network, word_bits: int) -> Footprint:
    """The footprint of ``network`` with ``word_bits``-bit activations (see the module doc)."""
    weights = kv = 0.0
    activations = 0
    for layer in network.layers:
        if not isinstance(layer, VectorLayer):
            stored = layer.weight_elements * stored_weight_bits(layer, word_bits) / 8
            if layer.name.endswith(KV_CACHE_LAYERS):
                kv += stored
            else:
                weights += stored
        activations = max(activations, layer.input_elements + layer.output_elements)
    memory = network.memory or ResidentMemory()
    weights += memory.other_weight_elements * (memory.other_weight_bits or word_bits) / 8
    return Footprint(weights, kv, activations * word_bits / 8, memory.batch)


def refusal(footprint: Footprint, device: str, capacity_bytes: float, what: str = "batch") -> str:
    """The one-line message of a run that does not fit: the need, the capacity, the largest batch."""
    largest = footprint.largest_batch(capacity_bytes)
    if largest is None:
        fit = "the workload states no batch (memory.batch), so no smaller batch is suggested"
    elif largest == 0:
        fit = f"not even the weights and one sequence fit ({footprint.per_sequence_bytes / GB:.2f} GB a sequence)"
    else:
        fit = f"the largest {what} that fits is {largest}"
    return (f"does not fit device memory: needs {footprint.describe()}, {device} holds "
            f"{capacity_bytes / GB:.2f} GB ({capacity_bytes / 2**30:g} GiB); {fit}")
