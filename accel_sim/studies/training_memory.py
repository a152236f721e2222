"""Peak training memory, conventional vs reordered backward, and what fits a device (issue 18).

The planner (:mod:`accel_sim.systems.training.memory`) on AlexNet, VGG-16 and ResNet-50 (dense workloads,
float32 tensors) at one batch; the largest batch and the largest network width that fit a device
memory under each schedule; Fujitsu's memory figures (AlexNet, ResNet-152) at their batch of 8.
"""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.plot.studies.training import memory_by_schedule
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme
from accel_sim.systems.training.memory import SCHEDULES, largest_batch, largest_width, plan_memory, widen
from accel_sim.foundations.workload.layer import ConvLayer
from accel_sim.foundations.workload.loader import load_workload

NETWORKS = ("alexnet_dense", "vgg16_dense", "resnet50")
BATCH = 32                  # Goyal et al. 2017: 32 images per worker (the distributed-training study's batch too)
DEVICE_MEMORY = 12 * 2**30  # assumption: a 2016 training GPU's memory (Tesla K40 / GTX Titan X: 12 GB)
GIB = 2**30
OVERVIEW = ("estimate: figures attributed at second hand to Fujitsu's 2017 overview of its deep-learning "
            "technologies (document not located; unverified)")
PRESS = ("Fujitsu Laboratories press release, 21 Sept 2016 (AlexNet, VGGNet in Caffe; http://www.acnnewswire.com/"
         "press-release/english/32431/)")

FUJITSU_BATCH = 8           # the batch Fujitsu's memory figures are stated for (overview)
# (workload, label, published GB, has batch norm): ~0.6 GB AlexNet, ~8 GB a ~150-layer ResNet (ResNet-152 here)
FUJITSU_NETWORKS = (("alexnet_dense", "AlexNet", 0.6, False), ("resnet152", "ResNet-152 (a ~150-layer ResNet)", 8.0, True))
# Buffers of a conv output's size that Caffe's batch norm keeps and the workload omits: BatchNormLayer's
# x_norm_ and temp_ (caffe/src/caffe/layers/batch_norm_layer.cpp) and an in-place ScaleLayer's copy of its
# input (scale_layer.cpp), as He et al.'s ResNet prototxts chain them after every convolution
BATCHNORM_SCALE_BUFFERS = 3
# Caffe's Eltwise sum closing each residual block writes a new blob (data and error; the ReLU after it is
# in place): caffe/src/caffe/layers/eltwise_layer.cpp, He et al.'s ResNet prototxts (res2a = Eltwise)
ELTWISE_BUFFERS = 2
# SGD with momentum keeps one history blob per parameter blob (SGDSolver::PreSolve's history_, read and written
# by ComputeUpdateValue: caffe/src/caffe/solvers/sgd_solver.cpp; its update_ and temp_ are never touched by
# L2-regularized momentum SGD, and Caffe allocates a blob's memory on first access, SyncedMemory)
MOMENTUM_BUFFERS = 1
CAFFE_SOURCES = ("BVLC/caffe src/caffe/layers/batch_norm_layer.cpp, scale_layer.cpp, eltwise_layer.cpp, "
                 "src/caffe/solvers/sgd_solver.cpp")
FP32_BYTES = 4


def fujitsu_table() -> pd.DataFrame:
    """Conventional peak memory of Fujitsu's networks at its batch, and per component the Caffe buffers the
    planner leaves out, counted from Caffe's source (estimates of the gap's mechanism, not added to the peak):
    batch-norm / scale buffers, the residual blocks' Eltwise blobs, the SGD momentum history."""
    rows = []
    for name, label, published, batchnorm in FUJITSU_NETWORKS:
        network = load_workload(name)
        conv_outputs = sum(layer.output_elements for layer in network.layers if isinstance(layer, ConvLayer))
        omitted = BATCHNORM_SCALE_BUFFERS * conv_outputs * FUJITSU_BATCH * FP32_BYTES if batchnorm else 0
        block_outputs = sum(layer.output_elements for layer in network.layers if layer.name.endswith("_conv3"))
        plan = plan_memory(network, FUJITSU_BATCH, "conventional")
        rows.append({"network": name, "label": label, "batch": FUJITSU_BATCH, "published_gb": published,
                     "peak_bytes": plan.peak_bytes, "batchnorm_scale_bytes": omitted,
                     "eltwise_bytes": ELTWISE_BUFFERS * block_outputs * FUJITSU_BATCH * FP32_BYTES,
                     "momentum_bytes": MOMENTUM_BUFFERS * plan.weights_bytes})
    frame = pd.DataFrame(rows)
    frame["with_caffe_buffers_bytes"] = frame[["peak_bytes", "batchnorm_scale_bytes", "eltwise_bytes",
                                               "momentum_bytes"]].sum(axis=1)
    return frame


def _fujitsu_comparisons(table: pd.DataFrame) -> list[Comparison]:
    comparisons = []
    for row in table.itertuples():
        parts = [(row.batchnorm_scale_bytes, "batch-norm + scale buffers"), (row.eltwise_bytes, "Eltwise sum blobs"),
                 (row.momentum_bytes, "SGD momentum history")]
        gap = "; ".join(f"{what} {size / 1e9:.2f} GB" for size, what in parts if size)
        comparisons += [
            Comparison(f"{row.label} training memory, conventional, batch {row.batch} (the condition of Fujitsu's "
                       f"figure; not in the planner, from Caffe's source: {gap}; README)", "GB", row.published_gb,
                       row.peak_bytes / 1e9, OVERVIEW, tolerance=0.25),
            Comparison(f"{row.label}, batch {row.batch}, the planner plus those Caffe buffers (estimate; the rest of "
                       "any gap: cuDNN workspaces, CUDA context and allocator, not itemized by a source)", "GB",
                       row.published_gb, row.with_caffe_buffers_bytes / 1e9, f"{OVERVIEW}; {CAFFE_SOURCES}", tolerance=0.25)]
    return comparisons


def _weights(network) -> int:
    return sum(layer.weight_elements for layer in network.layers)


def memory_table() -> tuple[pd.DataFrame, pd.DataFrame]:
    rows, fits = [], []
    for name in NETWORKS:
        network = load_workload(name)
        conventional = plan_memory(network, BATCH, "conventional").peak_bytes
        for schedule in SCHEDULES:
            plan = plan_memory(network, BATCH, schedule)
            rows.append({"network": name, "schedule": schedule, "batch": BATCH, "peak_bytes": plan.peak_bytes,
                         "peak_gib": plan.peak_bytes / GIB, "peak_op": plan.peak_op,
                         "weights_bytes": plan.weights_bytes,
                         "reduction_vs_conventional": 1 - plan.peak_bytes / conventional})
        for schedule in ("conventional", "reordered"):
            width = largest_width(network, BATCH, DEVICE_MEMORY, schedule)
            fits.append({"network": name, "schedule": schedule, "device_memory_gib": DEVICE_MEMORY / GIB,
                         "largest_batch": largest_batch(network, DEVICE_MEMORY, schedule),
                         "largest_width": width, "largest_weights": _weights(widen(network, width))})
    return pd.DataFrame(rows), pd.DataFrame(fits)


@study("training-memory", "Training memory: conventional vs reordered backward (AlexNet, VGG-16, ResNet-50)", cpu_s=0.6)
def training_memory() -> StudyOutput:
    frame, fits = memory_table()
    peak = frame.set_index(["network", "schedule"])
    fit = fits.set_index(["network", "schedule"])

    def ratio(network: str, column: str) -> float:
        return float(fit.loc[(network, "reordered"), column] / fit.loc[(network, "conventional"), column])

    comparisons = []
    for network, label in (("alexnet_dense", "AlexNet"), ("vgg16_dense", "VGG-16")):
        comparisons += [
            Comparison(f"{label}: peak-memory reduction, reordered vs conventional, batch {BATCH} "
                       "(published: more than 40 %)", "fraction", 0.40,
                       float(peak.loc[(network, "reordered"), "reduction_vs_conventional"]), f"{OVERVIEW}; {PRESS}"),
            Comparison(f"{label}: largest network (weights) in {DEVICE_MEMORY // GIB} GiB at batch {BATCH}, "
                       "reordered / conventional (published: about 2x)", "ratio", 2.0,
                       ratio(network, "largest_weights"), f"{OVERVIEW}; {PRESS}"),
            Comparison(f"{label}: largest batch in {DEVICE_MEMORY // GIB} GiB, reordered / conventional", "ratio", 2.0,
                       ratio(network, "largest_batch"), f"{OVERVIEW} (doubling the batch)"),
        ]
    fujitsu = fujitsu_table()
    comparisons += _fujitsu_comparisons(fujitsu)
    by_network = fujitsu.set_index("network")
    resnet = by_network.loc["resnet152"]
    a = peak.loc["alexnet_dense"]
    v = peak.loc["vgg16_dense"]
    text = readme(
        __name__,
        batch=BATCH,
        alexnet_reordered_saving=f"{100 * a.loc['reordered', 'reduction_vs_conventional']:.1f}",
        alexnet_liveness_saving=f"{100 * a.loc['liveness', 'reduction_vs_conventional']:.1f}",
        vgg_reordered_saving=f"{100 * v.loc['reordered', 'reduction_vs_conventional']:.1f}",
        vgg_liveness_saving=f"{100 * v.loc['liveness', 'reduction_vs_conventional']:.1f}",
        fujitsu_batch=FUJITSU_BATCH,
        alexnet_fujitsu_gb=f"{by_network.loc['alexnet_dense', 'peak_bytes'] / 1e9:.2f}",
        resnet152_gb=f"{resnet['peak_bytes'] / 1e9:.2f}",
        resnet152_batchnorm_gb=f"{resnet['batchnorm_scale_bytes'] / 1e9:.2f}",
        resnet152_eltwise_gb=f"{resnet['eltwise_bytes'] / 1e9:.2f}",
        resnet152_momentum_gb=f"{resnet['momentum_bytes'] / 1e9:.2f}",
        resnet152_caffe_gb=f"{resnet['with_caffe_buffers_bytes'] / 1e9:.1f}",
        alexnet_momentum_gb=f"{by_network.loc['alexnet_dense', 'momentum_bytes'] / 1e9:.2f}",
        alexnet_caffe_gb=f"{by_network.loc['alexnet_dense', 'with_caffe_buffers_bytes'] / 1e9:.2f}",
        device_memory_gib=DEVICE_MEMORY // GIB,
    )
    return StudyOutput(frame, memory_by_schedule(frame), text, tuple(comparisons),
                       tables={"fits": fits, "fujitsu": fujitsu})
