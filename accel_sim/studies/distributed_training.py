"""Data-parallel training at scale: speed-up vs devices with each of Fujitsu's three techniques on and
off, AlexNet and ResNet-50; gradient precision and the power cap (issue 18).

Baseline cluster: ``cluster_configs/dlu_64_edr.yaml`` (DLU-style devices, INT16, batch 32 each, 4 per
host behind one PCIe 3.0 x16 switch uplink, host memory shared by copies, CPU adds and NIC, hosts on
InfiniBand EDR, ring all-reduce through the hosts' CPUs, float32 gradients). Every device's layers are simulated on its arch; the step runs on the SimPy cluster model.
"""
from __future__ import annotations

import dataclasses
import itertools

import pandas as pd

from accel_sim.cluster.plan import TOPOLOGIES, Techniques
from accel_sim.cluster.run import run_cluster
from accel_sim.cluster.spec import LoadedCluster, load_cluster
from accel_sim.config.loader import load_arch
from accel_sim.dlu.spec import DATA_TYPE_BITS
from accel_sim.plot.studies.training import speedup_by_technique
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.training.timing import network_timing
from accel_sim.workload.loader import load_workload

CONFIG = "dlu_64_edr"
NETWORKS = ("alexnet_dense", "resnet50")
DEVICES = (1, 2, 4, 8, 16, 32, 64)
SWITCHES = ("backward_overlap", "forward_overlap", "host_pipelining")
# DLU data type and its gradient bits (the DLU datapath widths, accel_sim/dlu/spec.py)
PRECISIONS = tuple((data_type, DATA_TYPE_BITS[data_type]) for data_type in ("fp32", "fp16", "int16", "int8"))
BATCHES = (8, 16, 32, 64, 128)
SWITCH_SHARING = (1, 2, 4)   # devices per PCIe switch uplink in the sensitivity table
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
          bits: int | None = None, topology: str | None = None, update: bool = True, **host) -> LoadedCluster:
    spec = base.spec
    if not update:
        spec = dataclasses.replace(spec, device=dataclasses.replace(spec.device, update_bandwidth=None))
    if arch == OTHER_DEVICE:   # the update streams that device's own memory
        spec = dataclasses.replace(spec, device=dataclasses.replace(spec.device,
                                                                    update_bandwidth=OTHER_DEVICE_UPDATE_BANDWIDTH))
    if host:
        spec = dataclasses.replace(spec, host=dataclasses.replace(spec.host, **host))
    if topology is not None:
        spec = dataclasses.replace(spec, network=dataclasses.replace(spec.network, topology=topology))
    if batch is not None:
        spec = dataclasses.replace(spec, device=dataclasses.replace(spec.device, batch=batch))
    if bits is not None:
        spec = dataclasses.replace(spec, gradients=dataclasses.replace(spec.gradients, bits=bits))
    return LoadedCluster(spec, load_arch(arch) if arch else base.arch,
                         load_workload(network) if network else base.network, base.file)


def _all_vs_none(loaded: LoadedCluster, devices: int = 64) -> tuple[float, object, object]:
    timing = network_timing(loaded.arch, loaded.network, loaded.spec.device.batch)
    none = run_cluster(loaded, devices, NONE, timing)
    every = run_cluster(loaded, devices, ALL, timing)
    return none.step_s / every.step_s, none, every


def scaling_table(base: LoadedCluster) -> pd.DataFrame:
    rows = []
    for network in NETWORKS:
        loaded = _with(base, network=network)
        timing = network_timing(loaded.arch, loaded.network, loaded.spec.device.batch)
        for flags in itertools.product((False, True), repeat=3):
            techniques = Techniques(*flags)
            for n in DEVICES:
                row = run_cluster(loaded, n, techniques, timing).row()
                rows.append({"network": network, "techniques": _label(techniques), **row})
    return pd.DataFrame(rows)


def precision_table(base: LoadedCluster) -> pd.DataFrame:
    rows = []
    for data_type, bits in PRECISIONS:
        loaded = _with(base, bits=bits)
        loaded = dataclasses.replace(loaded, arch=load_arch(base.spec.device.arch, {"dlu.data_type": data_type}))
        timing = network_timing(loaded.arch, loaded.network, loaded.spec.device.batch)
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


def sensitivity_table(base: LoadedCluster) -> pd.DataFrame:
    """All three techniques vs none at 64 devices, AlexNet, for other per-device batches, another device,
    the other all-reduce topologies, and the host's shared resources one by one (devices per PCIe switch,
    host memory not modelled)."""
    rows = []
    own, batch0, ring = base.spec.device.arch, base.spec.device.batch, base.spec.network.topology
    switch0 = base.spec.host.devices_per_switch
    cases = ([dict(arch=own, batch=b) for b in BATCHES] + [dict(arch=OTHER_DEVICE)]
             + [dict(topology=t) for t in TOPOLOGIES if t != ring]
             + [dict(devices_per_switch=k) for k in SWITCH_SHARING if k != switch0]
             + [dict(memory_bandwidth=None), dict(memory_bandwidth=None, devices_per_switch=1), dict(update=False),
                dict(update=False, memory_bandwidth=None, devices_per_switch=1)])
    for case in cases:
        loaded = _with(base, **case)
        ratio, none, every = _all_vs_none(loaded)
        host = loaded.spec.host
        rows.append({"device": case.get("arch", own), "batch": case.get("batch", batch0),
                     "topology": case.get("topology", ring), "devices_per_switch": host.devices_per_switch,
                     "host_memory": "off" if host.memory_bandwidth is None else "shared",
                     "update": loaded.spec.device.update_bandwidth is not None,
                     "all_vs_none": ratio, "speedup_all": every.speedup, "compute_s": none.compute_s,
                     "none_step_s": none.step_s, "all_step_s": every.step_s, "copy_busy_s": none.copy_busy_s,
                     "reduce_busy_s": none.reduce_busy_s, "memory_busy_s": every.memory_busy_s,
                     "update_s": none.update_s})
    return pd.DataFrame(rows)


@study("distributed-training", "Data-parallel training: speed-up vs devices with backward / forward overlap and "
                               "host pipelining (AlexNet, ResNet-50), precision and power cap", cpu_s=10)
def distributed_training() -> StudyOutput:
    base = load_cluster(CONFIG)
    frame = scaling_table(base)
    precision = precision_table(base)
    sensitivity = sensitivity_table(base)
    at = frame.set_index(["network", "techniques", "devices"])
    every, none = _label(ALL), _label(NONE)

    def ratio(network: str, devices: int) -> float:
        return float(at.loc[(network, none, devices), "step_s"] / at.loc[(network, every, devices), "step_s"])

    a_all, a_none = at.loc[("alexnet_dense", every, 64)], at.loc[("alexnet_dense", none, 64)]
    p = precision.set_index("data_type")
    comparisons = (
        Comparison("AlexNet, 64 devices: speed-up of the three techniques together vs none", "x", 1.8,
                   ratio("alexnet_dense", 64), OVERVIEW, tolerance=0.20),
        Comparison("AlexNet, 64 devices: improvement over conventional (press release: 71 %)", "x", 1.71,
                   ratio("alexnet_dense", 64), PRESS),
        Comparison("AlexNet, 16 devices: improvement over conventional (press release: 46 %)", "x", 1.46,
                   ratio("alexnet_dense", 16), PRESS),
        Comparison("AlexNet, 64 devices with the techniques: speed-up over one device", "x", 27.0,
                   float(a_all["speedup"]), PRESS),
        Comparison("AlexNet, 16 devices with the techniques: speed-up over one device", "x", 14.7,
                   float(at.loc[("alexnet_dense", every, 16), "speedup"]), PRESS),
        Comparison("training samples per joule at the power cap, 16-bit (INT16) vs FP32 (published: 2-4x "
                   "from 16 and 8 bits; 2x taken for 16 bits)", "ratio", 2.0,
                   float(p.loc["int16", "samples_per_j_vs_fp32"]), OVERVIEW),
        Comparison("training samples per joule at the power cap, 8-bit (INT8) vs FP32 (4x taken for 8 bits)", "ratio",
                   4.0, float(p.loc["int8", "samples_per_j_vs_fp32"]), OVERVIEW),
    )
    host = base.spec.host
    own, batch0, ring, switch0 = base.spec.device.arch, base.spec.device.batch, base.spec.network.topology, \
        host.devices_per_switch

    def case(device: str = own, batch: int = batch0, topology: str = ring, switch: int = switch0,
             memory: str = "shared", update: bool = True) -> float:
        row = sensitivity[(sensitivity.device == device) & (sensitivity.batch == batch) & (sensitivity.topology ==
                          topology) & (sensitivity.devices_per_switch == switch) & (sensitivity.host_memory == memory)
                          & (sensitivity["update"] == update)]
        return float(row.all_vs_none.iloc[0])

    readme = f"""
Baseline: `cluster_configs/{CONFIG}.yaml` (every constant cited there, fixed from its sources before the
model was run with it): DLU-style devices (`arch_configs/dlu.yaml`, INT16) with 32 samples each, 4 per
host behind one PCIe switch whose PCIe 3.0 x16 uplink (15.75 GB/s) they share, hosts on InfiniBand EDR
(100 Gb/s), gradients (float32) reduced by the hosts' CPUs (adding at {host.reduce_bandwidth / 1e9:.0f} GB/s,
so memory bound) in host memory of {host.memory_bandwidth / 1e9:.0f} GB/s (STREAM triad of a two-socket Xeon E5 v3)
shared by the devices' copies, the CPU's adds and the NIC, and all-reduced in a ring; buckets of 25 MiB,
chunks of 4 MiB. The devices are the DLU line's, not the GPUs of Fujitsu's experiment: the project
has no model of a 2016 GPU (its tensor-core model is an A100 of 2020; `sensitivity.csv` shows it too).
Per-device forward and backward GEMMs (input error and weight gradient per layer) are simulated on the
DLU model; the cluster step runs on the SimPy model, checked against its closed form (steps ending in a
barrier; a fluid flow shop where pipelined stages share host memory) and its bounds at every point.

"None" is the conventional path: backward ends, the whole gradient is copied to the host, reduced and
all-reduced, copied back, then the next forward starts. Backward overlap starts a bucket's
communication when backward has produced it; forward overlap starts a layer's next forward when its own
weights are back, the communication serving the layers the next forward needs first first; host
pipelining splits buckets into chunks that flow through the three stages at once, where they contend
for host memory (each running phase gets a max-min fair share).

AlexNet at 64 devices: no technique {1e3 * a_none['step_s']:.1f} ms per step (compute {1e3 * a_none['compute_s']:.1f} ms,
copies {1e3 * a_none['copy_busy_s']:.1f} ms, reduction {1e3 * a_none['reduce_busy_s']:.1f} ms, weight update
{1e3 * a_none['update_s']:.1f} ms, all exposed); all three {1e3 * a_all['step_s']:.1f} ms (compute and update, then
{1e3 * a_all['exposed_communication_s']:.1f} ms of exposed communication; host memory busy {1e3 * a_all['memory_busy_s']:.1f} ms
at full bandwidth): a speed-up of {ratio('alexnet_dense', 64):.2f}x against the published 1.8x, outside the
20 % bar. The breakdown explains it: with every technique on, the step is bound by the device (compute
and the update, which must precede each layer's next forward), the copies, reduction and host memory
each below it; with none it is their sum. The shared resources do not bring the ratio down: sharing the
switch uplink makes each copy four times longer, which the conventional path exposes in full and the
techniques hide, and host-memory contention costs the all-technique step only its
{1e3 * a_all['exposed_communication_s']:.1f} ms of exposed communication. The update, on the device in both, is
what lowers it (from {case(update=False):.2f}x without it). One resource at a time (`sensitivity.csv`):
every device on its own root port {case(switch=1):.2f}x, two per switch {case(switch=2):.2f}x; host memory not
modelled {case(memory='off'):.2f}x; none of the three (the model before them, except that its CPU added at a
fixed 25.6 GB/s and here adds at the cores' rate, nearly free) {case(switch=1, memory='off', update=False):.2f}x. Other settings:
{', '.join(f"batch {b}: {case(batch=b):.2f}x" for b in BATCHES)}; an A100 at batch 32 (its update at its own HBM2
rate): {case(device=OTHER_DEVICE):.2f}x; tree {case(topology='tree'):.2f}x, parameter server
{case(topology='parameter_server'):.2f}x. The baseline was fixed before running and is not tuned: the gap is
reported, not removed. ResNet-50 (about 2.4x fewer weights, 5.6x more compute per sample) is
compute-bound on this device: {ratio('resnet50', 64):.2f}x.

Not modelled: compute slowed by copies into the device's memory, the two sockets' NUMA split of host
memory (one pool here), and whatever Fujitsu's "conventional" Caffe already overlapped: the 1.8x is
against their baseline, which the press release does not describe; a baseline that already hid the
copies would give a ratio near the "own root port" rows.

Against Fujitsu's 2016 press release (27x over one GPU at 64 GPUs, 14.7x at 16) this cluster scales
much better ({a_all['speedup']:.1f}x at 64): a DLU at batch 32 computes for {1e3 * a_all['compute_s']:.0f} ms per step, long against
the communication. Fujitsu's GPUs and per-GPU batch are not stated; a faster device or a smaller batch
shifts the balance to communication (`sensitivity.csv`).

Precision and power (`precision.csv`): the DLU's data type (FP32, FP16, INT16, INT8) sets the device's
simulated speed and the gradient bits on the wire (32, 16, 16, 8); the power cap ({base.spec.power_cap / 1e3:.0f} kW)
with {base.spec.device.power:.0f} W per device (issue: 200-300 W per GPU) and a host share sets how many
devices fit. Board power is taken as fixed per device (no published DLU power per data type), so the
samples per joule follow throughput; `compute_energy_vs_fp32` gives the simulated dynamic energy of the
GEMMs per sample (the 45 nm table), which falls much faster.
"""
    return StudyOutput(frame, speedup_by_technique(frame), readme, comparisons,
                       tables={"precision": precision, "sensitivity": sensitivity})
