"""Data-parallel training at scale: speed-up vs devices with each of Fujitsu's three techniques on and
off, AlexNet and ResNet-50; gradient precision and the power cap (issue 18).

Bar row: ``cluster_configs/gpu2016_64_edr.yaml``, Fujitsu's 2016 experiment as far as it is published (GPUs,
Caffe, AlexNet, 64), the GPUs at a measured 2016 speed, every unpublished field an assumption kept from
``cluster_configs/dlu_64_edr.yaml`` (the DLU line: ResNet-50, precision and power). The study
``distributed-training-unknowns`` spans the unpublished settings and marks those that reproduce the press
release's own scaling. Every device's layers are simulated on its arch (scaled to a measurement where the
config gives one); the step runs on the SimPy cluster model.
"""
from __future__ import annotations

import dataclasses
import itertools

import pandas as pd

from accel_sim.systems.cluster.plan import TOPOLOGIES, Techniques
from accel_sim.systems.cluster.run import device_timing, run_cluster
from accel_sim.systems.cluster.spec import DeviceSpec, LoadedCluster, load_cluster
from accel_sim.pipeline.catalog import load_arch
from accel_sim.models.dlu.spec import DATA_TYPE_BITS
from accel_sim.pipeline.plot.studies.training import speedup_by_technique
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.foundations.workload.loader import load_workload

CONFIG = "gpu2016_64_edr"    # the documented system of Fujitsu's experiment: the bar and press-release rows
DLU_CONFIG = "dlu_64_edr"    # the DLU line: ResNet-50, precision and power cap
NETWORKS = ("alexnet_dense", "resnet50")
DEVICES = (1, 2, 4, 8, 16, 32, 64)
SWITCHES = ("backward_overlap", "forward_overlap", "host_pipelining")
# DLU data type and its gradient bits (the DLU datapath widths, accel_sim/models/dlu/spec.py)
PRECISIONS = tuple((data_type, DATA_TYPE_BITS[data_type]) for data_type in ("fp32", "fp16", "int16", "int8"))
BATCHES = (8, 16, 32, 64, 128)
SWITCH_SHARING = (1, 2, 4)   # devices per PCIe switch uplink (sensitivity table, distributed-training-unknowns)
# NUMA bound: with every device behind one root (one socket's PCIe) and the buffers in that socket's
# memory, the copies, adds and NIC share one socket's DRAM, half the two-socket STREAM figure the configs
# cite (Puget Systems measure both sockets together; the sockets are alike). A sensitivity row, not a model.
SOCKETS = 2
OTHER_DEVICE = "ampere_a100_dense"
OTHER_DEVICE_UPDATE_BANDWIDTH = 1555e9   # arch_configs/ampere_a100.yaml: HBM2 1555 GB/s (A100 whitepaper)
OVERVIEW = "issue 18's description of Fujitsu's 2017 overview"
PRESS = ("Fujitsu Laboratories press release, Aug 2016, presented at SWoPP 2016 (AlexNet, Caffe, 16 / 64 GPUs; "
         "https://www.eetindia.co.in/fujitsu-uses-gpu-parallelisation-to-speed-deep-learning/)")
ALL, NONE = Techniques(True, True, True), Techniques()


def _label(t: Techniques) -> str:
    on = [name.replace("_", " ") for name in SWITCHES if getattr(t, name)]
    return " + ".join(on) if on else "none"


def _with(base: LoadedCluster, network: str | None = None, arch: str | None = None, batch: int | None = None,
          bits: int | None = None, topology: str | None = None, update: bool = True,
          device: DeviceSpec | None = None, network_bandwidth: float | None = None, **host) -> LoadedCluster:
    """``base`` with fields replaced (``device``: another device spec, kept at the base's batch unless
    ``batch`` is given; another ``arch`` or ``network`` drops a measured time, which is the base network's on
    the base device)."""
    spec = base.spec
    if device is not None:
        spec = dataclasses.replace(spec, device=dataclasses.replace(device, batch=spec.device.batch))
    if arch is not None or network is not None:
        spec = dataclasses.replace(spec, device=dataclasses.replace(spec.device, measured=None))
    if not update:
        spec = dataclasses.replace(spec, device=dataclasses.replace(spec.device, update_bandwidth=None))
    if arch == OTHER_DEVICE:   # the update streams that device's own memory
        spec = dataclasses.replace(spec, device=dataclasses.replace(spec.device,
                                                                    update_bandwidth=OTHER_DEVICE_UPDATE_BANDWIDTH))
    if host:
        spec = dataclasses.replace(spec, host=dataclasses.replace(spec.host, **host))
    if topology is not None:
        spec = dataclasses.replace(spec, network=dataclasses.replace(spec.network, topology=topology))
    if network_bandwidth is not None:
        spec = dataclasses.replace(spec, network=dataclasses.replace(spec.network, bandwidth=network_bandwidth))
    if batch is not None:
        spec = dataclasses.replace(spec, device=dataclasses.replace(spec.device, batch=batch))
    if bits is not None:
        spec = dataclasses.replace(spec, gradients=dataclasses.replace(spec.gradients, bits=bits))
    arch_spec = load_arch(arch) if arch else base.arch if device is None else load_arch(device.arch)
    return LoadedCluster(spec, arch_spec, load_workload(network) if network else base.network, base.file)


def _all_vs_none(loaded: LoadedCluster, devices: int = 64, timing=None) -> tuple[float, object, object]:
    timing = timing or device_timing(loaded)
    none = run_cluster(loaded, devices, NONE, timing)
    every = run_cluster(loaded, devices, ALL, timing)
    return none.step_s / every.step_s, none, every


def scaling_table(systems: tuple[tuple[LoadedCluster, tuple[str, ...]], ...]) -> pd.DataFrame:
    """Every set of techniques at 1..64 devices, for each cluster and the networks given with it (a measured
    device time belongs to its config's own network only)."""
    rows = []
    for base, networks in systems:
        for network in networks:
            loaded = base if network == base.spec.workload else _with(base, network=network)
            timing = device_timing(loaded)
            for flags in itertools.product((False, True), repeat=3):
                techniques = Techniques(*flags)
                for n in DEVICES:
                    row = run_cluster(loaded, n, techniques, timing).row()
                    rows.append({"cluster": base.spec.name, "network": network, "techniques": _label(techniques),
                                 **row})
    return pd.DataFrame(rows)


def precision_table(base: LoadedCluster) -> pd.DataFrame:
    rows = []
    for data_type, bits in PRECISIONS:
        loaded = _with(base, bits=bits)
        loaded = dataclasses.replace(loaded, arch=load_arch(base.spec.device.arch, {"dlu.data_type": data_type}))
        timing = device_timing(loaded)
        capped = run_cluster(loaded, None, ALL, timing).devices_in_power_cap or loaded.spec.devices
        result = run_cluster(loaded, capped, ALL, timing)
        rows.append({"data_type": data_type, "gradient_bits": bits, "devices": capped, "step_s": result.step_s,
                     "compute_s": result.compute_s, "exposed_communication_s": result.exposed_communication_s,
                     "samples_per_s": result.samples_per_s, "power_w": result.power_w,
                     "samples_per_j": result.samples_per_s / result.power_w,
                     "compute_energy_j_per_sample": result.compute_energy_j / (capped * loaded.spec.device.batch)})
    frame = pd.DataFrame(rows)
    fp32 = frame.set_index("data_type").loc["fp32"]
    frame["samples_per_j_vs_fp32"] = frame["samples_per_j"] / fp32["samples_per_j"]
    frame["compute_energy_vs_fp32"] = frame["compute_energy_j_per_sample"] / fp32["compute_energy_j_per_sample"]
    return frame


def _device_label(loaded: LoadedCluster) -> str:
    """The device's arch, marked where its times are a measurement scaled over the arch's layers."""
    return loaded.spec.device.arch + (" (measured times)" if loaded.spec.device.measured is not None else "")


def sensitivity_table(base: LoadedCluster) -> pd.DataFrame:
    """All three techniques vs none at 64 devices, AlexNet, for other per-device batches, another device,
    the other all-reduce topologies, and the host's shared resources one by one (devices per PCIe switch,
    host memory not modelled)."""
    rows = []
    batch0, ring = base.spec.device.batch, base.spec.network.topology
    switch0 = base.spec.host.devices_per_switch
    cases = ([dict(batch=b) for b in BATCHES] + [dict(arch=OTHER_DEVICE)]
             + [dict(topology=t) for t in TOPOLOGIES if t != ring]
             + [dict(devices_per_switch=k) for k in SWITCH_SHARING if k != switch0]
             + [dict(memory_bandwidth=None), dict(memory_bandwidth=None, devices_per_switch=1),
                dict(memory_bandwidth=base.spec.host.memory_bandwidth / SOCKETS), dict(update=False),
                dict(update=False, memory_bandwidth=None, devices_per_switch=1)])
    for case in cases:
        loaded = _with(base, **case)
        ratio, none, every = _all_vs_none(loaded)
        host = loaded.spec.host
        rows.append({"device": _device_label(loaded), "batch": case.get("batch", batch0),
                     "topology": case.get("topology", ring), "devices_per_switch": host.devices_per_switch,
                     "host_memory": "off" if host.memory_bandwidth is None else "shared" if
                     host.memory_bandwidth == base.spec.host.memory_bandwidth else "one socket",
                     "update": loaded.spec.device.update_bandwidth is not None,
                     "all_vs_none": ratio, "speedup_all": every.speedup, "compute_s": none.compute_s,
                     "none_step_s": none.step_s, "all_step_s": every.step_s, "copy_busy_s": none.copy_busy_s,
                     "reduce_busy_s": none.reduce_busy_s, "memory_busy_s": every.memory_busy_s,
                     "update_s": none.update_s})
    return pd.DataFrame(rows)


@study("distributed-training", "Data-parallel training: speed-up vs devices with backward / forward overlap and "
                               "host pipelining (AlexNet, ResNet-50), precision and power cap", cpu_s=5)
def distributed_training() -> StudyOutput:
    base, dlu = load_cluster(CONFIG), load_cluster(DLU_CONFIG)
    frame = scaling_table(((base, (base.spec.workload,)), (dlu, ("resnet50",))))
    precision = precision_table(dlu)
    sensitivity = sensitivity_table(base)
    at = frame.set_index(["cluster", "network", "techniques", "devices"])
    every, none = _label(ALL), _label(NONE)

    def ratio(network: str, devices: int, cluster: str = CONFIG) -> float:
        return float(at.loc[(cluster, network, none, devices), "step_s"]
                     / at.loc[(cluster, network, every, devices), "step_s"])

    a_all, a_none = at.loc[(CONFIG, "alexnet_dense", every, 64)], at.loc[(CONFIG, "alexnet_dense", none, 64)]
    p = precision.set_index("data_type")
    dlu_ratio = _all_vs_none(dlu)[0]
    comparisons = (
        Comparison(f"AlexNet, 64 devices: speed-up of the three techniques together vs none ({CONFIG}: GPUs at a "
                   "measured 2016 speed; host and network as assumed; the range over the unpublished settings: "
                   "study distributed-training-unknowns)", "x", 1.8, ratio("alexnet_dense", 64), OVERVIEW,
                   tolerance=0.20),
        Comparison(f"AlexNet, 64 devices: three techniques vs none on the DLU line ({DLU_CONFIG})", "x", 1.8,
                   dlu_ratio, OVERVIEW),
        Comparison("AlexNet, 64 devices: improvement over conventional (press release: 71 %)", "x", 1.71,
                   ratio("alexnet_dense", 64), PRESS),
        Comparison("AlexNet, 16 devices: improvement over conventional (press release: 46 %)", "x", 1.46,
                   ratio("alexnet_dense", 16), PRESS),
        Comparison("AlexNet, 64 devices with the techniques: speed-up over one device", "x", 27.0,
                   float(a_all["speedup"]), PRESS),
        Comparison("AlexNet, 16 devices with the techniques: speed-up over one device", "x", 14.7,
                   float(at.loc[(CONFIG, "alexnet_dense", every, 16), "speedup"]), PRESS),
        Comparison("training samples per joule at the power cap, 16-bit (INT16) vs FP32 (published: 2-4x "
                   "from 16 and 8 bits; 2x taken for 16 bits)", "ratio", 2.0,
                   float(p.loc["int16", "samples_per_j_vs_fp32"]), OVERVIEW),
        Comparison("training samples per joule at the power cap, 8-bit (INT8) vs FP32 (4x taken for 8 bits)", "ratio",
                   4.0, float(p.loc["int8", "samples_per_j_vs_fp32"]), OVERVIEW),
    )
    host = base.spec.host
    batch0, ring, switch0 = base.spec.device.batch, base.spec.network.topology, host.devices_per_switch
    own = _device_label(base)

    def case(device: str = own, batch: int = batch0, topology: str = ring, switch: int = switch0,
             memory: str = "shared", update: bool = True) -> float:
        row = sensitivity[(sensitivity.device == device) & (sensitivity.batch == batch) & (sensitivity.topology ==
                          topology) & (sensitivity.devices_per_switch == switch) & (sensitivity.host_memory == memory)
                          & (sensitivity["update"] == update)]
        return float(row.all_vs_none.iloc[0])

    readme = f"""
Bar row: `cluster_configs/{CONFIG}.yaml`, the system of Fujitsu's experiment as far as it is published
(press release of August 2016: GPUs, Caffe, AlexNet, 16 and 64 GPUs in several computers on a "high-speed
network"). Nothing else about it is published where this project's search reached (the press release and
its reprints, the Fujitsu Journal article of January 2017, EE Times Japan; the 2017 overview itself was
not found): not the GPU model, GPUs per computer, PCIe layout, CPUs, network, per-GPU batch, nor what the
"conventional" path did beyond "before applying the technology". So the GPUs run at a *measured* 2016 speed
(NVIDIA Titan X, Maxwell, AlexNet forward 27 ms + backward 53 ms per 128 images with cuDNN R4, from
soumith/convnet-benchmarks; Caffe's guide recommends cuDNN), linear in the batch, split over the layers in
the proportions the simulated `{base.spec.device.arch}` gives; its update streams the Titan X's 336 GB/s. Every
unpublished host and network field keeps the assumption of `{DLU_CONFIG}.yaml`, unchanged: {batch0} samples per
GPU, 4 per host behind one PCIe 3.0 x16 switch uplink, host memory {host.memory_bandwidth / 1e9:.0f} GB/s shared by the copies,
the CPU adds and the NIC, InfiniBand EDR, ring all-reduce, buckets of 25 MiB, chunks of 4 MiB. The
device's layers are simulated, the cluster step runs on the SimPy model, checked against its closed form
(steps ending in a barrier; a fluid flow shop where pipelined stages share host memory) and its bounds.

"None" is the conventional path: backward ends, the whole gradient is copied to the host, reduced and
all-reduced, copied back, then the next forward starts. Backward overlap starts a bucket's
communication when backward has produced it; forward overlap starts a layer's next forward when its own
weights are back, the communication serving the layers the next forward needs first first; host
pipelining splits buckets into chunks that flow through the three stages at once, where they contend
for host memory (each running phase gets a max-min fair share).

AlexNet at 64 GPUs: no technique {1e3 * a_none['step_s']:.1f} ms per step (compute {1e3 * a_none['compute_s']:.1f} ms,
copies {1e3 * a_none['copy_busy_s']:.1f} ms, reduction {1e3 * a_none['reduce_busy_s']:.1f} ms, weight update
{1e3 * a_none['update_s']:.1f} ms, all exposed); all three {1e3 * a_all['step_s']:.1f} ms (compute and update, then
{1e3 * a_all['exposed_communication_s']:.1f} ms of exposed communication; host memory busy {1e3 * a_all['memory_busy_s']:.1f} ms
at full bandwidth): **{ratio('alexnet_dense', 64):.2f}x** against the published 1.8x (bar: within 20 %). A 2016 GPU
computes a step of 32 images in {1e3 * a_all['compute_s']:.0f} ms, well below the communication with four GPUs on
one uplink: with every technique the step is bound by the busiest communication resource, with none it is
the sum of compute and every stage.

**The unknowns.** The study `distributed-training-unknowns` runs this comparison over every combination of
the unpublished settings (device speed, per-device batch, devices per switch, EDR or FDR, ring / tree /
parameter-server all-reduce), gives the range they span, and marks the settings that reproduce the press
release's own scaling (27x at 64, 14.7x at 16); its README says in which order those were decided.

One resource at a time on `{CONFIG}` (`sensitivity.csv`): every device on its own root port
{case(switch=1):.2f}x, two per switch {case(switch=2):.2f}x; host memory not modelled {case(memory='off'):.2f}x; no
update {case(update=False):.2f}x; host memory of one socket only ({host.memory_bandwidth / SOCKETS / 1e9:.0f} GB/s: the
NUMA case where every device hangs off one socket and the buffers sit in its memory) {case(memory='one socket'):.2f}x;
{', '.join(f"batch {b}: {case(batch=b):.2f}x" for b in BATCHES)}; an A100 (simulated,
its update at its HBM2 rate): {case(device=OTHER_DEVICE):.2f}x; tree {case(topology='tree'):.2f}x, parameter
server {case(topology='parameter_server'):.2f}x. On the DLU line (`{DLU_CONFIG}`, INT16, simulated) the same
comparison gives {dlu_ratio:.2f}x (row of its own). ResNet-50 on the DLU line (about 2.4x fewer
weights, 5.6x more compute per sample) is compute-bound: {ratio('resnet50', 64, DLU_CONFIG):.2f}x.

Not modelled: compute slowed by copies into the device's memory (bounded: a copy uses at most the
PCIe rate of the device's memory bandwidth, 15.75 / 336 GB/s = 4.7 % on the Titan X, so compute
overlapped with copies is stretched by at most that), the two sockets' NUMA split of host memory (one
pool here; the one-socket row above bounds it), the press release's second technique (choosing the reduction method by the size
of the shared data), and whatever Fujitsu's "conventional" Caffe already overlapped.

Precision and power (`precision.csv`, DLU line): the DLU's data type (FP32, FP16, INT16, INT8) sets the
device's simulated speed and the gradient bits on the wire (32, 16, 16, 8); the power cap
({dlu.spec.power_cap / 1e3:.0f} kW) with {dlu.spec.device.power:.0f} W per device (issue: 200-300 W per GPU) and a host share
sets how many devices fit. Board power is taken as fixed per device (no published DLU power per data
type), so the samples per joule follow throughput; `compute_energy_vs_fp32` gives the simulated dynamic
energy of the GEMMs per sample (the 45 nm table), which falls much faster.
"""
    return StudyOutput(frame, speedup_by_technique(frame), readme, comparisons,
                       tables={"precision": precision, "sensitivity": sensitivity})
