"""The unknowns of Fujitsu's 64-GPU experiment (issue 18): the three techniques vs none over every
combination of the settings no source publishes, each marked by whether it reproduces the press release's
own scaling (27x over one GPU at 64, 14.7x at 16).

The bar row itself is ``distributed-training``'s (``cluster_configs/gpu2016_64_edr.yaml``); this study gives
the range the unpublished settings span around it, and which settings agree with which published figure.
"""
from __future__ import annotations

import dataclasses
import itertools

import pandas as pd

from accel_sim.systems.cluster.plan import TOPOLOGIES
from accel_sim.systems.cluster.run import device_timing
from accel_sim.systems.cluster.spec import LoadedCluster, MeasuredSpec, load_cluster
from accel_sim.pipeline.plot.studies.training import ratio_vs_scaling
from accel_sim.studies.distributed_training import CONFIG, DLU_CONFIG, OVERVIEW, SWITCH_SHARING, _all_vs_none, \
    _with
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme

# The unknowns of Fujitsu's system (none published; fixed before any was run, except the topology, below):
# the device's speed (Titan X measured with cuDNN R4 or with Caffe's own kernels, both soumith/
# convnet-benchmarks README at b458aab, AlexNet 128 x 3 x 224 x 224; or the simulated DLU of dlu_64_edr.yaml),
# devices per PCIe switch uplink, the per-device batch (32: Goyal et al. 2017; 128: the batch of that
# measurement and of Krizhevsky's "one weird trick" workers) and the network (InfiniBand EDR 4x 100 Gb/s;
# FDR 4x: 4 lanes x 14.0625 Gb/s x 64/66 = 54.5 Gb/s of data, IBTA).
CAFFE_NATIVE = MeasuredSpec(workload="alexnet_dense", batch=128, forward=0.121, backward=0.203)
GPU_CUDNN, GPU_CAFFE, DLU = ("Titan X, cuDNN R4 (measured)", "Titan X, Caffe's own kernels (measured)",
                              "DLU INT16 (simulated)")
UNKNOWN_DEVICES = (GPU_CUDNN, GPU_CAFFE, DLU)
UNKNOWN_BATCHES = (32, 128)
UNKNOWN_NETWORKS = (("EDR", 100e9 / 8), ("FDR", 54.5e9 / 8))
UNKNOWN_TOPOLOGIES = TOPOLOGIES   # added after the first grid (ring only): see the README
PRESS_TOLERANCE = 0.20       # a setting matches the press release's scaling within 20 % at 64 and at 16 devices
PRESS_64, PRESS_16 = 27.0, 14.7   # press release: speed-up over one GPU with the technique at 64 and 16 GPUs


def unknowns_table(gpu: LoadedCluster, dlu: LoadedCluster) -> pd.DataFrame:
    """The three techniques vs none at 64 and 16 devices (AlexNet) over every combination of the settings
    Fujitsu did not publish (see the constants above), each row saying whether the setting reproduces the
    press release's own scaling (27x at 64 GPUs and 14.7x at 16, over one GPU, within 20 %)."""
    devices = {GPU_CUDNN: lambda: gpu,
               GPU_CAFFE: lambda: _with(gpu, device=dataclasses.replace(gpu.spec.device, measured=CAFFE_NATIVE)),
               DLU: lambda: _with(gpu, device=dlu.spec.device)}
    rows = []
    for device, batch in itertools.product(UNKNOWN_DEVICES, UNKNOWN_BATCHES):
        base = devices[device]()
        timing = device_timing(_with(base, batch=batch))
        for switch, (network, bandwidth), topology in itertools.product(SWITCH_SHARING, UNKNOWN_NETWORKS,
                                                                        UNKNOWN_TOPOLOGIES):
            loaded = _with(base, batch=batch, devices_per_switch=switch, network_bandwidth=bandwidth,
                           topology=topology)
            ratio64, none64, all64 = _all_vs_none(loaded, 64, timing)
            ratio16, none16, all16 = _all_vs_none(loaded, 16, timing)
            rows.append({"device": device, "batch": batch, "devices_per_switch": switch, "network": network,
                         "topology": topology,
                         "all_vs_none_64": ratio64, "all_vs_none_16": ratio16, "speedup_all_64": all64.speedup,
                         "speedup_all_16": all16.speedup, "compute_s": all64.compute_s, "update_s": all64.update_s,
                         "none_step_64_s": none64.step_s, "all_step_64_s": all64.step_s,
                         "press_scaling_match": bool(abs(all64.speedup / PRESS_64 - 1) <= PRESS_TOLERANCE
                                                     and abs(all16.speedup / PRESS_16 - 1) <= PRESS_TOLERANCE)})
    return pd.DataFrame(rows)


def _setting(row: pd.Series) -> str:
    return f"{row.device}, batch {row.batch}, {row.devices_per_switch} per switch, {row.network}, {row.topology}"


def _range_rows(unknowns: pd.DataFrame, subset: str, rows: pd.DataFrame) -> tuple[Comparison, ...]:
    if rows.empty:
        return (Comparison(f"AlexNet, 64 devices, three techniques vs none: {subset}: no such setting in "
                           "unknowns.csv", "x", 1.8, float("nan"), OVERVIEW),)
    low, high = rows.loc[rows.all_vs_none_64.idxmin()], rows.loc[rows.all_vs_none_64.idxmax()]
    return tuple(Comparison(f"AlexNet, 64 devices, three techniques vs none: {which} over {subset} "
                            f"({len(rows)} of {len(unknowns)} settings; this one: {_setting(row)})", "x", 1.8,
                            float(row.all_vs_none_64), OVERVIEW) for which, row in (("lowest", low), ("highest", high)))


@study("distributed-training-unknowns", "Fujitsu's 64-GPU experiment: the three techniques vs none over every "
                                        "unpublished setting (device speed, PCIe layout, batch, network, "
                                        "all-reduce), against the press release's scaling", cpu_s=3.0)
def distributed_training_unknowns() -> StudyOutput:
    gpu, dlu = load_cluster(CONFIG), load_cluster(DLU_CONFIG)
    unknowns = unknowns_table(gpu, dlu)
    matching = unknowns[unknowns.press_scaling_match]
    within = unknowns[(unknowns.all_vs_none_64 / 1.8 - 1).abs() <= 0.20]
    comparisons = (*_range_rows(unknowns, "every unpublished setting", unknowns),
                   *_range_rows(unknowns, "the settings that reproduce the press release's 27x and 14.7x "
                                "within 20 %", matching))

    def span(rows: pd.DataFrame, column: str = "all_vs_none_64") -> str:
        return "none" if rows.empty else f"{rows[column].min():.2f}x to {rows[column].max():.2f}x"

    dimensions = (("device", UNKNOWN_DEVICES), ("batch", UNKNOWN_BATCHES),
                  ("devices_per_switch", SWITCH_SHARING), ("network", tuple(n for n, _ in UNKNOWN_NETWORKS)),
                  ("topology", UNKNOWN_TOPOLOGIES))
    by_one = "; ".join(f"{column} {value}: {span(unknowns[unknowns[column] == value])}"
                       for column, values in dimensions for value in values)
    ring = unknowns[unknowns.topology == "ring"]
    text = readme(
        __name__,
        config=CONFIG,
        unknown_devices='; '.join(UNKNOWN_DEVICES),
        dlu_config=DLU_CONFIG,
        unknown_batches=UNKNOWN_BATCHES,
        switch_sharing=SWITCH_SHARING,
        unknown_topologies=', '.join(UNKNOWN_TOPOLOGIES),
        ring_settings=len(ring),
        span_ring=span(ring),
        settings=len(unknowns),
        span_unknowns=span(unknowns),
        within_count=len(within),
        by_one=by_one,
        matching_count=len(matching),
        span_matching=span(matching),
        matching_settings='; '.join(_setting(r) for _, r in matching.iterrows()) or 'none',
        span_matching_16=span(matching, 'all_vs_none_16'),
    )
    return StudyOutput(unknowns, ratio_vs_scaling(unknowns, PRESS_64, 1.8), text, comparisons)
