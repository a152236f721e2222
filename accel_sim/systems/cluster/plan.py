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

Two resources are shared, not per device (the contention the issue asks a discrete-event model for):
the **PCIe switch uplink** (``devices_per_switch`` devices copy the same chunk at the same moment, data
parallelism keeping them in lockstep, so each gets its share of the one uplink) and the **host memory**
(``memory_bandwidth``: every stage moves bytes through the host's DRAM: the devices' DMA writes and
reads, the CPU adds, the NIC's sends and receives). Each stage is a sequence of *phases*; a phase has a
time of its own link or CPU (``cap``) and host-memory bytes (``traffic``); alone it takes
``max(cap, traffic / memory_bandwidth)``; phases running at once share the memory bandwidth max-min
fairly (:func:`fair_shares`).

Times are in seconds, sizes in bytes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TOPOLOGIES = ("ring", "tree", "parameter_server")
PHASES = ("device->host copy", "local sum", "all-reduce among hosts", "host->device copy")
STAGE_PHASES = {True: ((0,), (1, 2), (3,)), False: ((0, 1, 2, 3),)}   # host pipelining on / off
ADD_TRAFFIC = 3   # an add of two arrays reads two operands and writes one (bytes per operand byte)


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
    memory_bandwidth: float | None = None   # host DRAM, read + write bytes per second; None: not modelled
    devices_per_switch: int = 1             # devices sharing one PCIe switch uplink (of pcie_bandwidth)

    def __post_init__(self) -> None:
        if self.topology not in TOPOLOGIES:
            raise ValueError(f"topology must be one of {', '.join(TOPOLOGIES)}, got {self.topology!r}")
        if self.devices < 1 or self.devices_per_host < 1:
            raise ValueError("devices and devices_per_host must be >= 1")
        if min(self.pcie_bandwidth, self.reduce_bandwidth, self.network_bandwidth) <= 0:
            raise ValueError("every bandwidth must be > 0")
        if self.memory_bandwidth is not None and self.memory_bandwidth <= 0:
            raise ValueError("memory_bandwidth must be > 0 (or None: not modelled)")
        if self.devices_per_switch < 1:
            raise ValueError("devices_per_switch must be >= 1")

    @property
    def hosts(self) -> int:
        return math.ceil(self.devices / self.devices_per_host)

    @property
    def local_devices(self) -> int:
        """Devices on one host (the host adds their gradients before the network all-reduce)."""
        return min(self.devices, self.devices_per_host)

    @property
    def switch_sharers(self) -> int:
        """Devices copying through one PCIe switch uplink at once."""
        return min(self.devices_per_switch, self.local_devices)

    def copy_time(self, nbytes: np.ndarray) -> np.ndarray:
        """One PCIe copy of ``nbytes`` per device, the devices behind one switch sharing its uplink; none on
        one device."""
        if self.devices == 1:
            return np.zeros_like(nbytes, dtype=float)
        return self.pcie_latency + nbytes * self.switch_sharers / self.pcie_bandwidth

    def phases(self, nbytes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per chunk (rows) and phase (columns, :data:`PHASES`): the time of the phase's own link or CPU,
        and the host-memory bytes it moves (every device of the host copying, the host summing and
        all-reducing ``nbytes``).

        Local sum: (k - 1) adds of ``nbytes`` for k devices on the host. All-reduce among H hosts --
        ring: reduce-scatter + all-gather, 2 (H - 1) steps of ``nbytes / H`` (Patarasuk & Yuan 2009), each
        sending and receiving a piece, (H - 1) adds of a piece; tree: a binomial reduce then broadcast,
        2 ceil(log2 H) steps of ``nbytes`` (one send or receive each), ceil(log2 H) adds; parameter
        server: one host receives and returns (H - 1) whole gradients over its one link, (H - 1) adds.
        The NIC reads what it sends from, and writes what it receives to, host memory.
        """
        nbytes = np.asarray(nbytes, dtype=float)
        cap, traffic = np.zeros((len(nbytes), len(PHASES))), np.zeros((len(nbytes), len(PHASES)))
        if self.devices == 1:
            return cap, traffic
        k, h = self.local_devices, self.hosts
        copy = self.copy_time(nbytes)
        cap[:, 0] = cap[:, 3] = copy
        traffic[:, 0] = traffic[:, 3] = k * nbytes
        local_adds = (k - 1) * nbytes
        cap[:, 1], traffic[:, 1] = local_adds / self.reduce_bandwidth, ADD_TRAFFIC * local_adds
        if h > 1:
            if self.topology == "ring":
                piece = nbytes / h
                network = 2 * (h - 1) * (self.network_latency + piece / self.network_bandwidth)
                moved, adds = 2 * 2 * (h - 1) * piece, (h - 1) * piece
            elif self.topology == "tree":
                levels = math.ceil(math.log2(h))
                network = 2 * levels * (self.network_latency + nbytes / self.network_bandwidth)
                moved, adds = 2 * levels * nbytes, levels * nbytes
            else:
                network = 2 * self.network_latency + 2 * (h - 1) * nbytes / self.network_bandwidth
                moved, adds = 2 * (h - 1) * nbytes, (h - 1) * nbytes
            cap[:, 2] = network + adds / self.reduce_bandwidth
            traffic[:, 2] = moved + ADD_TRAFFIC * adds
        return cap, traffic

    def alone_time(self, cap: np.ndarray, traffic: np.ndarray) -> np.ndarray:
        """A phase's time when nothing else uses host memory."""
        if self.memory_bandwidth is None:
            return cap
        return np.maximum(cap, traffic / self.memory_bandwidth)

    def reduce_time(self, nbytes: np.ndarray) -> np.ndarray:
        """The host-side reduction of ``nbytes`` of gradient alone: local sum, then the all-reduce."""
        cap, traffic = self.phases(np.asarray(nbytes, dtype=float))
        return self.alone_time(cap, traffic)[:, 1:3].sum(axis=1)


def fair_shares(demand: np.ndarray, bandwidth: float) -> np.ndarray:
    """Max-min fair split of ``bandwidth`` among phases wanting ``demand`` bytes per second each (``inf``
    for a phase with no cap of its own): the smallest demands are met in full, the rest share equally."""
    share = np.zeros(len(demand))
    left, order = bandwidth, np.argsort(demand, kind="stable")
    for rank, i in enumerate(order):
        even = left / (len(order) - rank)
        share[i] = min(demand[i], even)
        left -= share[i]
    return share


def phase_rates(cap: np.ndarray, traffic: np.ndarray, memory_bandwidth: float | None) -> np.ndarray:
    """Fraction of each running phase done per second when they run together."""
    alone = np.where(cap > 0, 1.0 / np.where(cap > 0, cap, 1.0), np.inf)
    if memory_bandwidth is None:
        return alone
    with np.errstate(divide="ignore", invalid="ignore"):
        demand = np.where(cap > 0, traffic / np.where(cap > 0, cap, 1.0), np.where(traffic > 0, np.inf, 0.0))
        share = fair_shares(demand, memory_bandwidth)
        by_memory = np.where(traffic > 0, share / np.where(traffic > 0, traffic, 1.0), np.inf)
    return np.minimum(alone, by_memory)


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
    stage_s: np.ndarray               # chunks x stages (3 with host pipelining, else 1), each alone
    techniques: Techniques
    parts_s: np.ndarray               # chunks x 3: device->host copy, host reduction, host->device copy
    phase_cap: np.ndarray | None = None       # chunks x PHASES: own link / CPU time
    phase_traffic: np.ndarray | None = None   # chunks x PHASES: host-memory bytes
    memory_bandwidth: float | None = None     # host memory shared by concurrent phases (None: not modelled)
    update_s: np.ndarray | None = None        # per layer: the optimizer's weight update on the device

    @property
    def update_total_s(self) -> float:
        return 0.0 if self.update_s is None else float(self.update_s.sum())

    @property
    def device_busy_s(self) -> float:
        """The device's work per step: forward, backward and the weight update."""
        return self.compute_s + self.update_total_s

    @property
    def stage_phases(self) -> tuple[tuple[int, ...], ...]:
        return STAGE_PHASES[self.techniques.host_pipelining]

    @property
    def memory_contended(self) -> bool:
        """Phases of different stages may run at once and share host memory."""
        return self.memory_bandwidth is not None and self.stage_s.shape[1] > 1

    @property
    def memory_busy_s(self) -> float:
        """Host-memory time of one step's communication at full bandwidth (a lower bound of the step)."""
        if self.memory_bandwidth is None or self.phase_traffic is None:
            return 0.0
        return float(self.phase_traffic.sum()) / self.memory_bandwidth

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
              bucket_bytes: float, chunk_bytes: float, update_s=None) -> StepPlan:
    """The step's buckets and chunks with their stage times (``update_s``: each layer's weight update on
    the device, done when the layer's reduced gradient is back, before its next forward)."""
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
    nbytes = np.array(sizes, dtype=float)
    cap, traffic = fabric.phases(nbytes)
    alone = fabric.alone_time(cap, traffic)
    parts = np.stack([alone[:, 0], alone[:, 1] + alone[:, 2], alone[:, 3]], axis=1)
    stages = np.stack([alone[:, list(p)].sum(axis=1) for p in STAGE_PHASES[techniques.host_pipelining]], axis=1)
    update = None if update_s is None else np.asarray(update_s, float)
    return StepPlan(forward_s, backward_s, layer_bucket, np.array(owners), stages, techniques, parts, cap, traffic,
                    fabric.memory_bandwidth, update)
