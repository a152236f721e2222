"""Device memory of an LLM step and the largest batch or context that fits a capacity.

The footprint is :func:`accel_sim.foundations.workload.memory.network_footprint` of the step's
network (:func:`~accel_sim.foundations.workload.llm.generator.transformer_network`, which states the
batch and the parameters no layer reads): weights (the block and LM-head layers at their stored width,
plus embeddings and norm gains at the word width), the KV cache of every sequence (K and V of every
block, KV heads x head dimension x the positions attended to, at ``--kv-bits``), and the largest
layer's input + output. For Llama-2-7B in FP16 that is 6,738,415,616 parameters x 2 B = 13.48 GB of
weights and 2 x 32 x 4096 x T x 2 B of KV cache per sequence at context T (2.15 GB at T = 4096).
"""
from __future__ import annotations

from accel_sim.foundations.workload.llm.compression import DENSE, Compression
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import TransformerConfig
from accel_sim.foundations.workload.memory import Footprint, network_footprint


def step_footprint(config: TransformerConfig, step: InferenceStep, word_bits: int,
                   compression: Compression = DENSE) -> Footprint:
    """Bytes of device memory the step needs (see the module doc)."""
    return network_footprint(transformer_network(config, step, compression), word_bits)


def parameters(config: TransformerConfig) -> int:
    """The model's parameters as counted for device memory (the layers' weights plus
    :attr:`TransformerConfig.unsimulated_parameters`)."""
    network = transformer_network(config, InferenceStep("prefill", 1, 1), vector_ops=False)
    return sum(layer.weight_elements for layer in network.layers
               if not layer.name.endswith(("attn_score", "attn_context", "attn_decode"))) + config.unsimulated_parameters


def largest_batch(config: TransformerConfig, phase: str, context: int, capacity_bytes: float, word_bits: int,
                  compression: Compression = DENSE) -> int:
    """The largest batch of ``phase`` steps at ``context`` whose footprint fits (0: none)."""
    footprint = step_footprint(config, InferenceStep(phase, context, 1), word_bits, compression)
    return footprint.largest_batch(capacity_bytes) or 0


def largest_context(config: TransformerConfig, phase: str, batch: int, capacity_bytes: float, word_bits: int,
                    compression: Compression = DENSE) -> int:
    """The largest context (up to the model's positions) whose ``batch``-sequence step fits (0: none).
    The footprint grows with the context, so a bisection finds it."""
    def fits(context: int) -> bool:
        return step_footprint(config, InferenceStep(phase, context, batch), word_bits, compression
                              ).total_bytes <= capacity_bytes
    low, high = 0, config.max_positions or 1 << 20
    if fits(high):
        return high
    while high - low > 1:   # fits(low) (or low = 0), not fits(high)
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low
