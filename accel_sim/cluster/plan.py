"""A data-parallel training step as work for the cluster models (pure: no simulation).

Every device runs the same step on its own ``batch`` (data parallelism), so one device stands for
all: its forward layers 1..L, then its backward layers L..1. Gradients are grouped into **buckets**
in the order backward produces them (layer L first): a bucket closes when it holds at least
``bucket_bytes``. Each bucket's gradient goes through three stages (Fujitsu's host-pipelined
reduction, as issue 18 describes the 2017 overview): device -> host copy over PCIe, the host-side
reduction (the host's CPU adds its devices' gradients, then an all-reduce among hosts over the
network, the CPU adding what arrives), host -> device copy. With host pipelining each bucket is
split into chunks of ``chunk_bytes`` that flow through three separate stages; without it one
communication thread carries a whole bucket through the three stages in turn (one stage whose
time is their sum).

Times are in seconds, sizes in bytes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TOPOLOGIES = ("ring", "tree", "parameter_server")


@dataclass(frozen=True)
class Fabric:
    """The communication path one gradient chunk crosses (rates in bytes per second)."""

    devices: int
    devices_per_host: int
    pcie_bandwidth: float
    pcie_latency: float
    reduce_bandwidth: float       # host CPU adding gradient arrays (bytes of one operand per second)
    network_bandwidth: float
    network_latency: float
    topology: str

    def __post_init__(self) -> None:
        if self.topology not in TOPOLOGIES:
            raise ValueError(f"topology must be one of {', '.join(TOPOLOGIES)}, got {self.topology!r}")
        if self.devices < 1 or self.devices_per_host < 1:
            raise ValueError("devices and devices_per_host must be >= 1")
        if min(self.pcie_bandwidth, self.reduce_bandwidth, self.network_bandwidth) <= 0:
            raise ValueError("every bandwidth must be > 0")

    @property
    def hosts(self) -> int:
        return math.ceil(self.devices / self.devices_per_host)

    @property
    def local_devices(self) -> int:
        """Devices on one host (the host adds their gradients before the network all-reduce)."""
        return min(self.devices, self.devices_per_host)

    def copy_time(self, nbytes: np.ndarray) -> np.ndarray:
        """One PCIe copy of ``nbytes`` (every device its own link, all in parallel); none on one device."""
        if self.devices == 1:
            return np.zeros_like(nbytes, dtype=float)
        return self.pcie_latency + nbytes / self.pcie_bandwidth

    def reduce_time(self, nbytes: np.ndarray) -> np.ndarray:
        """The host-side reduction of ``nbytes`` of gradient: local sum, then the all-reduce among hosts.

        ring: reduce-scatter + all-gather, 2 (H - 1) steps of ``nbytes / H`` (Patarasuk & Yuan 2009),
        the CPU adding (H - 1) pieces; tree: a binomial reduce then broadcast, 2 ceil(log2 H) steps of
        ``nbytes``, ceil(log2 H) additions; parameter server: one host receives and returns (H - 1)
        whole gradients over its one link and adds (H - 1) of them.
        """
        if self.devices == 1:
            return np.zeros_like(nbytes, dtype=float)
        local = (self.local_devices - 1) * nbytes / self.reduce_bandwidth
        h = self.hosts
        if h == 1:
            return local
        if self.topology == "ring":
            piece = nbytes / h
            network = 2 * (h - 1) * (self.network_latency + piece / self.network_bandwidth)
            adds = (h - 1) * piece / self.reduce_bandwidth
        elif self.topology == "tree":
            levels = math.ceil(math.log2(h))
            network = 2 * levels * (self.network_latency + nbytes / self.network_bandwidth)
            adds = levels * nbytes / self.reduce_bandwidth
        else:
            network = 2 * self.network_latency + 2 * (h - 1) * nbytes / self.network_bandwidth
            adds = (h - 1) * nbytes / self.reduce_bandwidth
        return local + network + adds


@dataclass(frozen=True)
class Techniques:
    """Fujitsu's three techniques (issue 18), each a switch."""

    backward_overlap: bool = False   # a bucket's communication starts when backward has produced it
    forward_overlap: bool = False    # a layer's next forward starts when its own weights are back
    host_pipelining: bool = False    # buckets split into chunks through three overlapping stages


@dataclass(frozen=True)
class StepPlan:
    """One device's step: per-layer compute, buckets, and each chunk's stage times (chunk order =
    bucket order, then position in the bucket)."""

    forward_s: np.ndarray             # per layer, layer order 1..L
    backward_s: np.ndarray            # per layer, layer order 1..L
    layer_bucket: np.ndarray          # bucket index of each layer
    chunk_bucket: np.ndarray          # bucket index of each chunk
    stage_s: np.ndarray               # chunks x stages (3 with host pipelining, else 1: their sum)
    techniques: Techniques
    parts_s: np.ndarray               # chunks x 3: device->host copy, host reduction, host->device copy

    @property
    def buckets(self) -> int:
        return int(self.layer_bucket.max()) + 1 if self.layer_bucket.size else 0

    @property
    def compute_s(self) -> float:
        return float(self.forward_s.sum() + self.backward_s.sum())

    def bucket_first_layer(self) -> np.ndarray:
        """Lowest layer index in each bucket: the layer the next forward needs first."""
        return np.array([int(np.flatnonzero(self.layer_bucket == b).min()) for b in range(self.buckets)])

    def bucket_ready_s(self) -> np.ndarray:
        """When backward has produced each bucket, from the start of backward (with backward overlap;
        without, every bucket waits for the whole backward)."""
        total = float(self.backward_s.sum())
        if not self.techniques.backward_overlap:
            return np.full(self.buckets, total)
        done = np.cumsum(self.backward_s[::-1])[::-1]   # backward of layer i ends after layers L..i
        return np.array([done[self.bucket_first_layer()[b]] for b in range(self.buckets)])


def assign_buckets(gradient_bytes: np.ndarray, bucket_bytes: float) -> np.ndarray:
    """Bucket index per layer: layers L..1 fill a bucket until it holds at least ``bucket_bytes``."""
    buckets = np.zeros(len(gradient_bytes), dtype=int)
    index, filled = 0, 0.0
    for layer in range(len(gradient_bytes) - 1, -1, -1):
        buckets[layer] = index
        filled += gradient_bytes[layer]
        if filled >= bucket_bytes and layer > 0:
            index, filled = index + 1, 0.0
    return buckets


def plan_step(forward_s, backward_s, gradient_bytes, fabric: Fabric, techniques: Techniques,
              bucket_bytes: float, chunk_bytes: float) -> StepPlan:
    """The step's buckets and chunks with their stage times."""
    forward_s, backward_s = np.asarray(forward_s, float), np.asarray(backward_s, float)
    gradient_bytes = np.asarray(gradient_bytes, float)
    layer_bucket = assign_buckets(gradient_bytes, bucket_bytes)
    sizes, owners = [], []
    for b in range(int(layer_bucket.max()) + 1):
        total = float(gradient_bytes[layer_bucket == b].sum())
        if techniques.host_pipelining:
            pieces = max(1, math.ceil(total / chunk_bytes))
            part = [chunk_bytes] * (pieces - 1) + [total - chunk_bytes * (pieces - 1)]
        else:
            part = [total]
        sizes += part
        owners += [b] * len(part)
    nbytes = np.array(sizes)
    parts = np.stack([fabric.copy_time(nbytes), fabric.reduce_time(nbytes), fabric.copy_time(nbytes)], axis=1)
    stages = parts if techniques.host_pipelining else parts.sum(axis=1, keepdims=True)
    return StepPlan(forward_s, backward_s, layer_bucket, np.array(owners), stages, techniques, parts)
