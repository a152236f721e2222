"""Peak training memory, conventional vs reordered backward, and what fits a device (issue 18).

The planner (:mod:`accel_sim.systems.training.memory`) on AlexNet, VGG-16 and ResNet-50 (dense workloads,
float32 tensors) at one batch; the largest batch and the largest network width that fit a device
memory under each schedule.
"""
from __future__ import annotations

import pandas as pd

from accel_sim.pipeline.plot.studies.training import memory_by_schedule
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.systems.training.memory import SCHEDULES, largest_batch, largest_width, plan_memory, widen
from accel_sim.foundations.workload.loader import load_workload

NETWORKS = ("alexnet_dense", "vgg16_dense", "resnet50")
BATCH = 32                  # Goyal et al. 2017: 32 images per worker (the distributed-training study's batch too)
DEVICE_MEMORY = 12 * 2**30  # assumption: a 2016 training GPU's memory (Tesla K40 / GTX Titan X: 12 GB)
GIB = 2**30
OVERVIEW = "issue 18's description of Fujitsu's 2017 overview"
PRESS = ("Fujitsu Laboratories press release, 21 Sept 2016 (AlexNet, VGGNet in Caffe; http://www.acnnewswire.com/"
         "press-release/english/32431/)")


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


@study("training-memory", "Training memory: conventional vs reordered backward (AlexNet, VGG-16, ResNet-50)")
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
    comparisons += [
        Comparison(f"AlexNet training memory, conventional, batch {BATCH}", "GB", 0.6,
                   float(peak.loc[("alexnet_dense", "conventional"), "peak_bytes"]) / 1e9, OVERVIEW),
        Comparison(f"ResNet training memory, conventional, ResNet-50 at batch {BATCH}", "GB", 8.0,
                   float(peak.loc[("resnet50", "conventional"), "peak_bytes"]) / 1e9, OVERVIEW),
    ]
    a = peak.loc["alexnet_dense"]
    v = peak.loc["vgg16_dense"]
    readme = f"""
Peak memory of one training step (float32 tensors, batch {BATCH} per device) under three schedules of
the training-memory planner (`accel_sim/systems/training/memory.py`):

- **conventional**: Caffe's static allocation, every blob's data and error and every parameter's value
  and gradient allocated for the whole step, plus the largest im2col workspace (one sample);
- **liveness**: each tensor lives from the op that writes it to the last op that reads it (an ideal
  allocator), input error then weight gradient per layer, weight gradients kept to the update;
- **reordered**: per layer the two independent backward GEMMs ordered so the larger buffer is reused:
  where the layer's input activation is larger than its weights, the weight gradient first, after which
  the input is dead and the input error is written into its memory; where the weights are larger, the
  input error first (it needs the old weights), then the weight gradient accumulated straight into the
  weights (the SGD update fused into the GEMM), so that layer has no weight-gradient buffer. This is the
  reading of "the larger first" this model makes; a Fujitsu patent application (US 2018/0150745)
  claims the first half (parameter error before the neuron error, held in the same memory areas).

Reduction vs conventional: AlexNet {100 * a.loc['reordered', 'reduction_vs_conventional']:.1f} % (liveness alone
{100 * a.loc['liveness', 'reduction_vs_conventional']:.1f} %), VGG-16 {100 * v.loc['reordered', 'reduction_vs_conventional']:.1f} %
(liveness alone {100 * v.loc['liveness', 'reduction_vs_conventional']:.1f} %). On VGG-16, whose activations dominate,
most of the saving against Caffe's static allocation is liveness itself; on AlexNet, whose fully connected
weights and gradients dominate, reordering does most of it (no weight-gradient buffer for those layers). The published figure (more than 40 %) is met on both, but note what the model
leaves out: ReLU, LRN, dropout and pooling blobs are not in the workloads (pooling appears only as the
size change between two listed layers), so the conventional baseline here is smaller than Caffe's real
one and the published memory needs (about 0.6 GB AlexNet, 8 GB ResNet; their batch is not stated)
are compared at batch {BATCH}: ResNet-50's conventional need is {peak.loc[('resnet50', 'conventional'), 'peak_bytes'] / 1e9:.1f} GB here,
without its batch-norm and ReLU blobs (which double a ResNet's activations) and for ResNet-50, while the
overview's figure is probably for a deeper ResNet. ResNet's residual branches are planned as a chain (a
downsample shortcut is taken as a layer in sequence), an approximation.

What fits a device of {DEVICE_MEMORY // GIB} GiB (assumption: the 12 GB of a 2016 training GPU, Tesla K40 /
GTX Titan X): `fits.csv` gives the largest batch and the largest width factor (every layer's channels
and features scaled, data and classes kept) under each schedule; "network size" is the widened
network's weight count. The width grows about as the square root of memory for weight-dominated
networks, so "about 2x network" is read as 2x the weights.
"""
    return StudyOutput(frame, memory_by_schedule(frame), readme, tuple(comparisons), tables={"fits": fits})
