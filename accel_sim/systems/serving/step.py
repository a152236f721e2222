"""The time and energy of one serving iteration, from the family's own step model.

An iteration runs, through every transformer block and then the LM head:

- the weight layers (projections, MLP, norms, rotary, residuals) once over all its token rows: the
  decoding sequences' one token each plus the prefill chunk's tokens (``rows``); ``fused_qkv``: the q, k and v
  projections as one GEMM (``attn_qkv``), as engines that fuse them run it;
- the decode attention of ``decode`` sequences, one new token each, attending to ``decode_span``
  positions (the batch's mean, so the KV-cache bytes read are the batch's own), as the fused
  decode-attention kernel serving engines run (``attn_decode``: one pass over the cache split along
  its length, :func:`accel_sim.foundations.workload.llm.generator.attention_layers`; ``attention="unfused"``:
  the score, softmax and context kernels); ``kv_reads`` names the kernel's reads of a grouped-query
  model's cache: ``per_kv_head`` (a GQA-aware kernel, once per KV head) or ``per_query_head`` (one thread
  block per query head, as TensorRT-LLM's masked multi-head attention before its XQA kernel: the cache of a
  KV head read once per query head of its group, the repeats served by the L2 when they share a wave);
- the prefill attention of one chunk of ``prefill`` tokens attending to ``prefill_span`` positions
  (the prompt's prefix so far plus the chunk: the full square for an unchunked prompt, as the
  generator's prefill step);
- the LM head (and final norm) over the ``heads`` sequences that produce a token;
- with tensor parallelism (:mod:`.parallel`), one device's slice of all of it, plus two all-reduces of the
  rows' activations per block.

Every layer is built by the generator (:mod:`accel_sim.foundations.workload.llm.generator`) and timed by
:func:`accel_sim.pipeline.simulate.simulate_layer` on the arch, once per shape: the blocks are identical, so
one block's layers times the number of blocks is the stack. For one sequence with no bucketing the
iteration is exactly :func:`accel_sim.pipeline.simulate.simulate` of the generator's step
(``tests/serving/test_serving.py``). Vector layers are charged serially (the arch's overlap switch is not
applied across the composed layers).

Two stated approximations keep a run of thousands of requests fast; both are options:

- **buckets**: token rows are rounded up to a multiple of ``row_bucket`` and attention spans to a multiple
  of ``span_bucket`` before timing (never down: a step is never timed as less work than it is);
- **decode attention above ``2 x anchor`` sequences** is extrapolated linearly from the simulated
  ``anchor`` and ``2 x anchor`` sequences at the same span: each sequence reads its own KV cache, so past
  the point where the grouped kernel fills the device its time grows by the same amount per sequence
  (the fixed part, launch and pipeline fill, counted once). A batch of thousands of heads x sequences
  is also beyond the size a single layer may be simulated at.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import NetworkLayer
from accel_sim.foundations.workload.llm.compression import DENSE, Compression
from accel_sim.foundations.workload.llm.generator import KV_READS, InferenceStep, attention_layers, transformer_layers
from accel_sim.foundations.workload.llm.hf_config import TransformerConfig
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.pipeline.simulate import simulate_layer
from accel_sim.systems.serving.parallel import TensorParallel, shard

ATTENTION = ("attn_score", "attn_softmax", "attn_context", "attn_decode")
PREFIX = "l0_"


@dataclass(frozen=True)
class Iteration:
    """The work of one engine iteration (see the module doc)."""

    decode: int = 0          # sequences decoding one token
    decode_span: int = 0     # positions each decoding token attends to (the batch's mean)
    prefill: int = 0         # prompt tokens in this iteration's chunk
    prefill_span: int = 0    # positions the chunk attends to (its prefix plus itself)
    heads: int = 0           # sequences that produce a token (LM head rows)

    @property
    def rows(self) -> int:
        return self.decode + self.prefill


@dataclass(frozen=True)
class StepCost:
    seconds: float
    energy_j: float

    def __add__(self, other: StepCost) -> StepCost:
        return StepCost(self.seconds + other.seconds, self.energy_j + other.energy_j)

    def scaled(self, factor: float) -> StepCost:
        return StepCost(self.seconds * factor, self.energy_j * factor)


ZERO = StepCost(0.0, 0.0)


def _up(value: int, bucket: int) -> int:
    return value if bucket <= 1 or value == 0 else -(-value // bucket) * bucket


class StepModel:
    """Times iterations of ``config`` on ``arch`` (weights and KV cache as ``compression`` says)."""

    def __init__(self, arch: ArchSpec, config: TransformerConfig, compression: Compression = DENSE,
                 row_bucket: int = 16, span_bucket: int = 128, anchor: int = 8, tp: TensorParallel | None = None,
                 attention: str = "fused", kv_reads: str = "per_kv_head", fused_qkv: bool = False):
        self.tp = tp or TensorParallel()
        self.arch, self.config, self.compression = arch, shard(config, self.tp.degree), compression
        self.block = dataclasses.replace(self.config, layers=1)
        self.row_bucket, self.span_bucket, self.anchor = row_bucket, span_bucket, anchor
        self.fused = attention == "fused"
        if kv_reads not in KV_READS:
            raise InputError.single("--kv-reads", kv_reads, f"expected one of {', '.join(KV_READS)}")
        self.kv_reads = kv_reads
        self.fused_qkv = fused_qkv   # one attn_qkv GEMM instead of attn_q, attn_k, attn_v (generator module doc)
        self.table = load_energy_table(arch.energy_table)
        self._layers: dict[NetworkLayer, StepCost] = {}
        self._iterations: dict[Iteration, StepCost] = {}
        self.layer_simulations = 0

    def bucketed(self, it: Iteration) -> Iteration:
        return Iteration(it.decode, _up(it.decode_span, self.span_bucket), _up(it.prefill, self.row_bucket),
                         _up(it.prefill_span, self.span_bucket), it.heads)

    def cost(self, iteration: Iteration) -> StepCost:
        key = self.bucketed(iteration)
        cost = self._iterations.get(key)
        if cost is None:
            cost = self._iterations[key] = self._cost(key)
        return cost

    # -- composition ---------------------------------------------------------------------------------

    def _cost(self, it: Iteration) -> StepCost:
        """One device's time; the energy of all ``tp.degree`` devices (each runs its slice)."""
        rows = _up(it.rows, self.row_bucket)
        block = self._weights(rows) + self._decode_attention(it.decode, it.decode_span)
        if it.prefill:
            block = block + self._run(attention_layers(self.block, PREFIX, 1, it.prefill, it.prefill_span))
        block = block + StepCost(self.tp.block_seconds(rows, self.config.hidden, self.arch.word_bits), 0.0)
        total = block.scaled(self.config.layers) + self._head(it.heads)
        return StepCost(total.seconds, total.energy_j * self.tp.degree)

    def _weights(self, rows: int) -> StepCost:
        if rows == 0:
            return ZERO
        layers = transformer_layers(self.block, InferenceStep("decode", 1, rows, fused_qkv=self.fused_qkv))
        return self._run([layer for layer in layers if layer.name.startswith(PREFIX)
                          and not layer.name.endswith(ATTENTION)])

    def _head(self, heads: int) -> StepCost:
        if heads == 0 or not self.config.decoder:
            return ZERO
        layers = transformer_layers(self.block, InferenceStep("decode", 1, heads))
        return self._run([layer for layer in layers if not layer.name.startswith(PREFIX)])

    def _decode_attention(self, sequences: int, span: int) -> StepCost:
        if sequences == 0:
            return ZERO
        def layers(batch: int) -> list[NetworkLayer]:
            return attention_layers(self.block, PREFIX, batch, 1, span, self.fused, self.kv_reads)
        if sequences <= 2 * self.anchor:
            return self._run(layers(sequences))
        low, high = self._run(layers(self.anchor)), self._run(layers(2 * self.anchor))
        per_sequence = StepCost((high.seconds - low.seconds) / self.anchor, (high.energy_j - low.energy_j) / self.anchor)
        return low + per_sequence.scaled(sequences - self.anchor)

    def _run(self, layers: list[NetworkLayer]) -> StepCost:
        total = ZERO
        for layer in self.compression.apply(tuple(layers)):
            cost = self._layers.get(layer)
            if cost is None:
                run = simulate_layer(self.arch, layer, self.table)
                energy = run.energy.total_pj + (run.static.total_pj if run.static is not None else 0.0)
                cost = self._layers[layer] = StepCost(run.result.cycles / self.arch.clock, energy * 1e-12)
                self.layer_simulations += 1
            total = total + cost
        return total


def kv_bytes_per_token(config: TransformerConfig, word_bits: int, compression: Compression = DENSE) -> float:
    """K and V of every block for one token: 2 x layers x KV heads x head dimension x the stored width."""
    bits = compression.kv_bits or word_bits
    return 2 * config.layers * config.kv_heads * config.head_dim * bits / 8

