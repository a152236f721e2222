"""Pipeline parallelism for inference: ``degree`` devices each hold ``layers / degree`` consecutive blocks (the
last also the LM head) and hand each micro-batch's activations to the next device, as vLLM's and TensorRT-LLM's
pipeline-parallel inference do (GPipe's schedule, Huang et al. 2019, without a backward pass).

- **Micro-batches**: an engine iteration is cut into ``degree`` micro-batches (vLLM keeps one scheduled batch per
  pipeline stage in flight, ``pipeline_parallel_size`` virtual engines): its decoding sequences and the sequences
  producing a token as evenly as possible, the prefill chunk with the first. Each micro-batch's cost on a stage is
  the step model's (:mod:`.step`) for its work on ``layers / degree`` blocks (the last stage with the LM head).
- **Hand-off**: after a stage, the micro-batch's activations (rows x hidden at the word width) cross the device
  link (``device_link_bandwidth`` each direction, plus ``device_link_latency``) to the next stage.
- **Events** (SimPy, :func:`pipeline_seconds`): a stage is a resource that computes one micro-batch at a time, in
  arrival order; a boundary's link is a resource that carries one hand-off at a time. A micro-batch enters
  stage s + 1 when its hand-off arrives; meanwhile stage s computes the next micro-batch, so transfers overlap
  compute. The iteration ends when the last micro-batch leaves the last stage (the engine's next iteration
  starts then: no overlap across iterations, a bound vLLM's asynchronous virtual engines would beat).
- **Bounds** (tests): the iteration takes at least the busiest stage's work, the busiest link's transfers and any
  one micro-batch's path through every stage and link.
- **Checks**: ``degree`` must divide the model's layers (each device a whole number of blocks); else one line.

Energy: every stage's work, summed (each device runs its own); the hand-offs' energy is not counted.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import simpy

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.llm.hf_config import TransformerConfig
from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.systems.serving.step import Iteration, StepCost, StepModel


def stage_config(config: TransformerConfig, degree: int) -> TransformerConfig:
    """One stage's blocks under ``degree``-way pipeline parallelism (an InputError unless it divides the layers)."""
    if degree < 1:
        raise InputError.single("--pp", str(degree), "must be >= 1")
    if config.layers % degree:
        raise InputError.single("--pp", str(degree), f"does not divide num_hidden_layers = {config.layers} of "
                                f"{config.source} (each device holds whole blocks)")
    return dataclasses.replace(config, layers=config.layers // degree)


def split(total: int, parts: int) -> list[int]:
    """``total`` as ``parts`` near-equal counts, the larger first."""
    base, extra = divmod(total, parts)
    return [base + (i < extra) for i in range(parts)]


def micro_batches(it: Iteration, parts: int) -> list[Iteration]:
    """The iteration cut into ``parts`` micro-batches (see the module doc); empty ones dropped."""
    decode, heads = split(it.decode, parts), split(it.heads, parts)
    micro = [Iteration(decode[i], it.decode_span if decode[i] else 0, it.prefill if i == 0 else 0,
                       it.prefill_span if i == 0 else 0, heads[i]) for i in range(parts)]
    return [m for m in micro if m.rows or m.heads]


def pipeline_seconds(costs: Sequence[Sequence[float]], transfers: Sequence[float]) -> float:
    """When the last of the micro-batches leaves the last stage: ``costs[m][s]`` the compute of micro-batch m on
    stage s, ``transfers[m]`` the time of its hand-off across each stage boundary (SimPy; module doc)."""
    env = simpy.Environment()
    stages = len(costs[0]) if costs else 0
    devices = [simpy.Resource(env, 1) for _ in range(stages)]
    links = [simpy.Resource(env, 1) for _ in range(max(0, stages - 1))]

    def flow(m: int):
        for s in range(stages):
            with devices[s].request() as turn:
                yield turn
                yield env.timeout(costs[m][s])
            if s + 1 < stages:
                with links[s].request() as turn:
                    yield turn
                    yield env.timeout(transfers[m])

    done = [env.process(flow(m)) for m in range(len(costs))]
    env.run(until=env.all_of(done))
    return float(env.now)


class PipelineStepModel:
    """Times iterations on ``degree`` pipeline stages of ``degree``-th of the blocks each (module doc); the same
    interface as :class:`~accel_sim.systems.serving.step.StepModel` for the engine."""

    def __init__(self, arch: ArchSpec, config: TransformerConfig, degree: int, **step_options):
        self.degree = degree
        self.stage = StepModel(arch, stage_config(config, degree), **step_options)
        self.hidden, self.word_bits = config.hidden, arch.word_bits
        if degree > 1 and not arch.device_link_bandwidth:
            raise InputError.single("--pp", str(degree), "the arch states no device_link_bandwidth")
        self.bandwidth, self.latency = arch.device_link_bandwidth, arch.device_link_latency
        self._iterations: dict[Iteration, StepCost] = {}

    @property
    def layer_simulations(self) -> int:
        return self.stage.layer_simulations

    def hand_off_seconds(self, rows: int) -> float:
        """One micro-batch's activations (``rows x hidden`` words) across one stage boundary."""
        return self.latency + rows * self.hidden * self.word_bits / 8 / self.bandwidth

    def stage_costs(self, micro: Iteration) -> list[StepCost]:
        """The micro-batch's cost on each stage: the blocks, and on the last stage the LM head too."""
        body = self.stage.cost(dataclasses.replace(micro, heads=0))
        return [body] * (self.degree - 1) + [self.stage.cost(micro)]

    def cost(self, iteration: Iteration) -> StepCost:
        key = self.stage.bucketed(iteration)
        cost = self._iterations.get(key)
        if cost is None:
            micro = micro_batches(key, self.degree)
            costs = [self.stage_costs(m) for m in micro]
            seconds = pipeline_seconds([[c.seconds for c in row] for row in costs],
                                       [self.hand_off_seconds(m.rows or m.heads) for m in micro])
            cost = self._iterations[key] = StepCost(seconds, sum(c.energy_j for row in costs for c in row))
        return cost
