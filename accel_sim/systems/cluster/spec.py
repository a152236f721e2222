"""The cluster config file (``cluster_configs/*.yaml``): devices, hosts, PCIe, network, gradients,
techniques. Validated once with the project's schema (:func:`accel_sim.foundations.config.schema.build`), then
checked against the workload it names (a bucket no larger than the model's gradient, a device memory
that holds at least the smallest layer)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.systems.cluster.plan import TOPOLOGIES, Fabric, Techniques
from accel_sim.foundations.config.loader import REPO_ROOT, resolve_path
from accel_sim.pipeline.catalog import load_arch
from accel_sim.foundations.config.schema import build, spec_field
from accel_sim.foundations.config.yaml_io import read_yaml, set_dotted
from accel_sim.foundations.errors import InputError, Problem
from accel_sim.foundations.workload.layer import Network
from accel_sim.foundations.workload.loader import load_workload

CLUSTER_DIR = REPO_ROOT / "cluster_configs"
PRESS = ("Fujitsu Laboratories press release, 9 Aug 2016 (SWoPP 2016), 'Fujitsu Develops High-Speed Technology to "
         "Process Deep Learning' (reprinted by HPCwire)")
PRECISION = ("Fujitsu Laboratories press release, 24 April 2017 (xSIG 2017): 16- and 8-bit dynamic fixed point "
             "in training")
GRADIENT_BITS = (32, 16, 8)


@dataclass(frozen=True)
class MeasuredSpec:
    workload: str = spec_field("The network the measurement ran: must be the cluster's workload.")
    batch: int = spec_field("Samples per step of the measurement.", positive=True)
    forward: float = spec_field("Measured forward time of the whole network at that batch.", unit="time",
                                positive=True)
    backward: float = spec_field("Measured backward time (input errors and weight gradients) at that batch.",
                                 unit="time", positive=True)


@dataclass(frozen=True)
class DeviceSpec:
    arch: str = spec_field("Accelerator config of each device (a name in arch_configs/ or a path); its "
                           "family simulates every layer's forward and backward GEMMs.")
    batch: int = spec_field("Samples per device per step (data parallelism: the global batch is devices x batch).",
                            positive=True)
    memory: int = spec_field("Device memory; the training-memory planner checks the step fits.", unit="size",
                             positive=True)
    power: float = spec_field("Board power of a device while it trains.", unit="power", positive=True,
                              source="estimate: board power of 2016 data-centre GPUs, 250 W (GTX Titan X, Tesla P100 PCIe) "
                              "to 300 W (Tesla P100 SXM2), NVIDIA datasheets")
    update_bandwidth: float | None = spec_field(
        "Device memory bandwidth the optimizer's weight update streams at (once a step, each layer when its "
        "reduced gradient is back). Absent: the update is not modelled.", None, unit="rate", positive=True)
    update_bytes_per_weight: int = spec_field(
        "Device-memory bytes the update moves per weight.", 20, positive=True,
        source="Caffe's SGD with momentum in float32: reads weight, gradient and history, writes history and weight")
    measured: MeasuredSpec | None = spec_field(
        "A measured forward / backward time of the whole network on the real device. Given: the device's step "
        "takes that time scaled linearly to ``batch``, split over the layers in the proportions ``arch`` "
        "simulates (forward and backward each). Absent: the simulated times themselves.", None)


@dataclass(frozen=True)
class HostSpec:
    pcie_bandwidth: float = spec_field("Device <-> host copy bandwidth per device, each direction.", unit="rate",
                                       positive=True, source="PCIe 3.0 x16: 8 GT/s x 16 lanes x 128/130 = 15.75 GB/s")
    reduce_bandwidth: float = spec_field("Rate at which the host CPU's cores add gradient arrays (bytes of one "
                                         "operand per second; threads + SIMD). With memory_bandwidth set, each add "
                                         "also moves 3 bytes per operand byte through host memory.", unit="rate",
                                         positive=True)
    pcie_latency: float = spec_field("Fixed time per copy (set-up, DMA start).", 0.0, unit="time", minimum=0)
    power: float = spec_field("Power of one host (CPUs, memory, NIC) while the cluster trains.", 0.0, unit="power",
                              minimum=0)
    memory_bandwidth: float | None = spec_field(
        "Sustained host DRAM bandwidth (read + write bytes), shared by the device<->host copies, the CPU adds and "
        "the NIC; phases running at once share it max-min fairly. Absent: host memory not modelled.", None,
        unit="rate", positive=True, source="e.g. STREAM triad of a two-socket Xeon E5 v3 host: 102 GB/s")
    devices_per_switch: int = spec_field("Devices behind one PCIe switch sharing its one uplink (of pcie_bandwidth) "
                                         "to the CPU; 1: every device on its own root port.", 1, positive=True)


@dataclass(frozen=True)
class NetworkSpec:
    bandwidth: float = spec_field("Network link bandwidth per host, each direction.", unit="rate", positive=True)
    latency: float = spec_field("Time per message on the network.", 0.0, unit="time", minimum=0)
    topology: str = spec_field("Gradient all-reduce among hosts: ring, tree (binomial reduce + broadcast) or "
                               "parameter_server (one host gathers and returns every gradient).", "ring",
                               choices=TOPOLOGIES)


@dataclass(frozen=True)
class GradientSpec:
    bucket: int = spec_field("Gradient bytes gathered before a bucket is communicated (backward order).",
                             unit="size", positive=True)
    chunk: int = spec_field("Chunk size of host pipelining (a bucket crosses the stages in chunks).", unit="size",
                            positive=True)
    bits: int = spec_field("Bits per gradient value on the wire (32 float; 16 / 8 dynamic fixed point).", 32,
                           choices=GRADIENT_BITS, source=f"{PRECISION}; bytes on the wire scale with the bits")


@dataclass(frozen=True)
class TechniquesSpec:
    backward_overlap: bool = spec_field("Communicate a bucket as soon as backward has produced it.", False,
                                        source=f"{PRESS}: communication and computation executed simultaneously")
    forward_overlap: bool = spec_field("Start a layer's next forward when its own weights are back (and serve "
                                       "the communication of the layers needed first first).", False,
                                       source=f"{PRESS}: transmission in the priority order the next learning step needs")
    host_pipelining: bool = spec_field("Split buckets into chunks through device->host copy, host reduction and "
                                       "host->device copy, overlapping the three stages.", False,
                                       source="estimate: a host-side reduction pipeline; Fujitsu's press releases say only that the "
                                              "sharing method changes with the size of the shared data")


@dataclass(frozen=True)
class ClusterSpec:
    name: str = spec_field("Short name used in reports.")
    workload: str = spec_field("Network trained (a name in workloads/ or a path).")
    device: DeviceSpec = spec_field("Each device.")
    devices: int = spec_field("Number of devices (data parallel).", positive=True)
    devices_per_host: int = spec_field("Devices attached to one host by PCIe.", positive=True)
    host: HostSpec = spec_field("Each host.")
    network: NetworkSpec = spec_field("The network between hosts.")
    gradients: GradientSpec = spec_field("Gradient communication.")
    techniques: TechniquesSpec = spec_field("Fujitsu's three techniques, each a switch.",
                                            default_factory=TechniquesSpec)
    description: str = spec_field("Free text: what this cluster is and where its numbers come from.", "")
    steps: int = spec_field("Steps simulated (the step time is the steady-state mean).", 4, minimum=1)
    power_cap: float | None = spec_field("Power available to the cluster: how many devices (with their host "
                                         "share) fit.", None, unit="power", positive=True)

    def fabric(self, devices: int | None = None) -> Fabric:
        return Fabric(devices or self.devices, self.devices_per_host, self.host.pcie_bandwidth, self.host.pcie_latency,
                      self.host.reduce_bandwidth, self.network.bandwidth, self.network.latency, self.network.topology,
                      self.host.memory_bandwidth, self.host.devices_per_switch)

    def techniques_switches(self) -> Techniques:
        t = self.techniques
        return Techniques(t.backward_overlap, t.forward_overlap, t.host_pipelining)


@dataclass(frozen=True)
class LoadedCluster:
    spec: ClusterSpec
    arch: ArchSpec
    network: Network
    file: str


def _named(load: Callable[[], Any], path: Path, field: str) -> Any:
    """``load()``, its input errors prefixed with the cluster file and the field that named the file."""
    try:
        return load()
    except InputError as error:
        raise InputError([Problem(str(path), field, str(problem)) for problem in error.problems]) from None


def load_cluster(config: str | Path, overrides: Mapping[str, Any] | None = None) -> LoadedCluster:
    """Load and validate a cluster config (a path or a name in ``cluster_configs/``), its device arch and
    its workload, and check them against each other."""
    from accel_sim.systems.training.memory import smallest_layer_bytes

    path = resolve_path(config, CLUSTER_DIR, (".yaml", ".yml"))
    raw = read_yaml(path)
    for dotted, value in (overrides or {}).items():
        raw = set_dotted(raw, dotted, value)
    try:
        spec: ClusterSpec = build(ClusterSpec, raw, str(path))
    except InputError as error:  # a field the user set on the command line is reported as theirs
        raise InputError([Problem(f"--set (on {problem.file})", problem.path, problem.message)
                          if problem.path in (overrides or {}) else problem for problem in error.problems]) from None
    arch = _named(lambda: load_arch(spec.device.arch), path, "device.arch")
    network = _named(lambda: load_workload(spec.workload), path, "workload")
    model_bytes = sum(layer.weight_elements for layer in network.layers) * spec.gradients.bits // 8
    if spec.gradients.bucket > model_bytes:
        raise InputError.single(str(path), "gradients.bucket", f"a bucket of {spec.gradients.bucket} bytes is larger "
                                f"than the whole gradient of {network.name} ({model_bytes} bytes at "
                                f"{spec.gradients.bits} bits); expected at most {model_bytes}")
    measured = spec.device.measured
    if measured is not None and measured.workload != spec.workload:
        raise InputError.single(str(path), "device.measured.workload", f"the measured times are of {measured.workload}, "
                                f"the cluster trains {spec.workload}; expected a measurement of {spec.workload} "
                                "(or no device.measured)")
    smallest = smallest_layer_bytes(network)
    if spec.device.memory < smallest:
        raise InputError.single(str(path), "device.memory", f"{spec.device.memory} bytes cannot hold even the smallest "
                                f"layer of {network.name} (weights, input and output at batch 1: {smallest} bytes); "
                                "expected a device memory at least that large")
    return LoadedCluster(spec, arch, network, str(path))
