"""Tensor parallelism for inference (Megatron-LM's split, Shoeybi et al. 2019): ``degree`` devices each
hold a slice of every block and of the LM head, and add their partial results with an all-reduce.

- **Split**: Q, K, V and the MLP's gate / up are split by columns (each device: heads / t query heads,
  KV heads / t KV heads, intermediate / t), the attention output and MLP down projections by rows; the LM
  head and the token embeddings by vocabulary. Each device stores its KV heads' cache only, so weights and
  KV cache are 1 / t per device (the norms, replicated, are hidden x 2 per block). :func:`shard` is the
  per-device model: the generator's layers of that config are exactly one device's work.
- **All-reduce**: after the attention output and after the MLP down projection, each of ``rows x hidden``
  activations at the word width: 2 per block. A ring all-reduce of M bytes over t devices sends
  2 (t - 1) / t x M bytes from each device in 2 (t - 1) steps; at the link's rate ``device_link_bandwidth``
  (each direction) plus ``all_reduce_latency``, the measured time of a smallest-message all-reduce (its
  synchronisation and launch, whatever the size). It cannot overlap the layer that produced it (the
  next layer needs the sum), so it adds to the step. The LM head's logits gather is not counted (B x vocab / t
  elements a device; sampling can run on the slices) and neither is the communication's energy.
- **Checks**: ``degree`` must divide the attention heads and the KV heads (each device a whole number of
  heads: no KV replication), the intermediate size and the vocabulary; else one line naming the field.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.llm.hf_config import TransformerConfig

ALL_REDUCES_PER_BLOCK = 2   # attention output, MLP down


def shard(config: TransformerConfig, degree: int) -> TransformerConfig:
    """One device's slice of ``config`` under ``degree``-way tensor parallelism."""
    if degree < 1:
        raise InputError.single("--tp", str(degree), "must be >= 1")
    if degree == 1:
        return config
    for what, value in (("num_attention_heads", config.heads), ("num_key_value_heads", config.kv_heads),
                        ("intermediate_size", config.intermediate), ("vocab_size", config.vocab)):
        if value % degree:
            raise InputError.single("--tp", str(degree), f"does not divide {what} = {value} of {config.source} "
                                    "(each device holds a whole share)")
    return dataclasses.replace(config, heads=config.heads // degree, kv_heads=config.kv_heads // degree,
                               intermediate=config.intermediate // degree, vocab=config.vocab // degree,
                               name=f"{config.name}_tp{degree}")


@dataclass(frozen=True)
class TensorParallel:
    degree: int = 1
    link_bandwidth: float | None = None   # bytes per second, each direction
    latency: float = 0.0                  # seconds per all-reduce, whatever its size

    def __post_init__(self) -> None:
        if self.degree < 1:
            raise InputError.single("--tp", str(self.degree), "must be >= 1")
        if self.degree > 1 and not self.link_bandwidth:
            raise InputError.single("--tp", str(self.degree), "the arch states no device_link_bandwidth")

    def all_reduce_bytes(self, rows: int, hidden: int, word_bits: int) -> int:
        """Bytes of one all-reduce's message: ``rows x hidden`` activations."""
        return rows * hidden * word_bits // 8

    def sent_bytes(self, message_bytes: int) -> float:
        """Bytes each device sends in a ring all-reduce of ``message_bytes``."""
        return 2 * (self.degree - 1) / self.degree * message_bytes

    def all_reduce_seconds(self, message_bytes: int) -> float:
        if self.degree == 1:
            return 0.0
        return self.latency + self.sent_bytes(message_bytes) / self.link_bandwidth

    def block_seconds(self, rows: int, hidden: int, word_bits: int) -> float:
        return ALL_REDUCES_PER_BLOCK * self.all_reduce_seconds(self.all_reduce_bytes(rows, hidden, word_bits))
