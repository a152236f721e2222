"""Pruning granularity: accuracy on the digits against speed-up on dense, 2:4 and sparse hardware.

Speed: VGG-16 conv5_1 .. conv5_3 (14 x 14 x 512 -> 512, 3 x 3, dense weights, the shipped input densities), conv5_2
pruned at each granularity (Mao et al. 2017's element / vector / kernel / filter / channel, and 2:4),
through the one pipeline: filter and channel pruning are compacted (conv5_2 loses filters and conv5_3
the matching inputs, or conv5_2 loses input channels and conv5_1 the matching filters), the others
are zeros in the full-size tensor. Speed-up = the three layers' cycles dense / pruned, per arch.

Accuracy: the digits MLP and small CNN (float32) pruned gradually at each granularity and density and
fine-tuned (:mod:`accel_sim.systems.nn.gradual_pruning`).
"""
from __future__ import annotations

import dataclasses

import pandas as pd

from accel_sim.pipeline.catalog import load_arch
from accel_sim.pipeline.plot.studies.pruning_granularity import granularity_figure
from accel_sim.pipeline.simulate import reused_layer_runs, simulate_many
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme
from accel_sim.systems.nn.digits import load_digits_split
from accel_sim.systems.nn.gradual_pruning import FINE_TUNE_EPOCHS, PRUNE_EPOCHS, prune_gradually
from accel_sim.systems.nn.lowbit.methods import LowBitConfig
from accel_sim.systems.nn.lowbit.train import LOWBIT_SCHEDULE, train_lowbit
from accel_sim.foundations.workload.layer import Network, NMSparsity, OperandSource
from accel_sim.foundations.workload.loader import load_workload

GRANULARITIES = ("unstructured", "vector", "kernel", "filter", "channel", "2:4")   # finest first, then N:M
DENSITIES = (0.5, 0.25)
ARCHS = ("tpu_like_128x128_ws", "ampere_a100_dense", "ampere_a100", "tpu_like_128x128_ws_nm", "pe_array_skipping",
         "scnn")
DENSE_ARCHS = ("tpu_like_128x128_ws", "ampere_a100_dense")
LAYERS, PRUNED = ("conv5_1", "conv5_2", "conv5_3"), "conv5_2"
NETWORKS = {"mlp": LOWBIT_SCHEDULE, "cnn": dataclasses.replace(LOWBIT_SCHEDULE, epochs=12)}  # as low-bit-training
COLUMNS = ["kind", "subject", "granularity", "density", "cycles", "speedup", "test_accuracy", "kept_density"]
MAO_2017 = ("Mao et al., Exploring the Regularity of Sparse Structure in Convolutional Neural Networks, "
            "NIPS 2017 workshop (arXiv:1705.08922), abstract and Sec. 1; Li et al., Pruning Filters for Efficient "
            "ConvNets, ICLR 2017")


def pruned_network(base: Network, granularity: str, density: float) -> Network:
    """The three layers with ``PRUNED`` at ``granularity`` and ``density`` (2:4: its own density 0.5)."""
    def prune(layer):
        if layer.name != PRUNED:
            return layer
        if granularity == "2:4":
            return dataclasses.replace(layer, weight_sparsity=NMSparsity(2, 4), operands=OperandSource(weight_pattern="nm"))
        return dataclasses.replace(layer, weight_density=density, operands=OperandSource(weight_pattern=granularity))
    return dataclasses.replace(base, layers=tuple(prune(layer) for layer in base.layers))


def speed_points(archs=ARCHS, granularities=GRANULARITIES, densities=DENSITIES) -> pd.DataFrame:
    vgg = load_workload("vgg16")
    base = dataclasses.replace(vgg, layers=tuple(dataclasses.replace(layer, weight_density=1.0)  # dense weights
                                                 for layer in vgg.layers if layer.name in LAYERS))
    specs = [load_arch(name) for name in archs]
    with reused_layer_runs():   # conv5_1 and conv5_3 stay as they are in most pruned networks: each runs once
        dense = [sum(layer.cycles for layer in run.layers) for run in simulate_many(specs, base)]
        rows = [dict(kind="speed", subject=name, granularity="dense", density=1.0, cycles=c, speedup=1.0)
                for name, c in zip(archs, dense)]
        for granularity in granularities:
            for density in ((0.5,) if granularity == "2:4" else densities):
                runs = simulate_many(specs, pruned_network(base, granularity, density))
                for name, run, full in zip(archs, runs, dense):
                    cycles = sum(layer.cycles for layer in run.layers)
                    rows.append(dict(kind="speed", subject=name, granularity=granularity, density=density,
                                     cycles=cycles, speedup=full / cycles))
    return pd.DataFrame(rows, columns=COLUMNS)


def accuracy_points(networks=tuple(NETWORKS), granularities=GRANULARITIES, densities=DENSITIES,
                    prune_epochs: int = PRUNE_EPOCHS, fine_tune_epochs: int = FINE_TUNE_EPOCHS) -> pd.DataFrame:
    data, rows = load_digits_split(), []
    for net in networks:
        schedule = NETWORKS[net]
        dense = train_lowbit(data, LowBitConfig("fp32", network=net), schedule, per_epoch_accuracy=False)
        rows.append(dict(kind="accuracy", subject=net, granularity="dense", density=1.0,
                         test_accuracy=dense.test_accuracy, kept_density=1.0))
        for granularity in granularities:
            if granularity == "kernel" and net == "mlp":
                continue  # no kernels in a fully connected layer
            for density in ((0.5,) if granularity == "2:4" else densities):
                run = prune_gradually(dense.network, data, granularity, density, schedule, prune_epochs,
                                      fine_tune_epochs)
                rows.append(dict(kind="accuracy", subject=net, granularity=granularity, density=density,
                                 test_accuracy=run.test_accuracy, kept_density=run.density))
    return pd.DataFrame(rows, columns=COLUMNS)


def claims(frame: pd.DataFrame) -> tuple[Comparison, ...]:
    """The digits accuracies per granularity, then the two qualitative claims, each confirmed or not."""
    acc = frame[(frame.kind == "accuracy") & (frame.granularity != "dense")]
    rows = [Comparison(f"digits {r.subject} test accuracy, {r.granularity} pruning to {100 * r.density:g} % "
                       "(gradual, fine-tuned)", "%", None, 100 * r.test_accuracy, MAO_2017) for r in acc.itertuples()]
    for net, part in acc.groupby("subject", sort=False):
        at = part[part.density == min(DENSITIES)].set_index("granularity").test_accuracy
        gap = 100 * (at["unstructured"] - at[["filter", "channel"]].mean())
        word = "confirmed" if (at["unstructured"] >= at[["filter", "channel"]]).all() else "not confirmed"
        grains = at.reindex([g for g in GRANULARITIES if g in at.index and g != "2:4"])
        order = "falls" if grains.is_monotonic_decreasing else "does not fall"
        rows.append(Comparison(f"finer granularity keeps accuracy better at the same density (digits {net}, "
                               f"{100 * min(DENSITIES):g} %: unstructured minus mean of filter / channel): {word}; "
                               f"accuracy {order} grain by grain ({', '.join(grains.index)})", "points", None, gap,
                               MAO_2017))
    speed = frame[(frame.kind == "speed") & (frame.density == 0.5)].set_index(["subject", "granularity"]).speedup
    for arch in DENSE_ARCHS:
        coarse, fine = speed[(arch, "filter")], speed[(arch, "unstructured")]
        word = "confirmed" if coarse > fine else "not confirmed"
        rows.append(Comparison(f"coarser granularity runs faster on dense hardware ({arch}, 50 %: filter "
                               f"speed-up, unstructured {fine:.2f}x): {word}", "x", None, coarse, MAO_2017))
    return tuple(rows)


@study("pruning-granularity", "Pruning granularity: digits accuracy vs speed-up on dense, 2:4 and sparse hardware",
       cpu_s=10.2, writes_operands=False)
def pruning_granularity() -> StudyOutput:
    frame = pd.concat([speed_points(), accuracy_points()], ignore_index=True)
    rows = claims(frame)
    findings = "\n".join(f"- {row.quantity}: {row.simulated:.2f} {row.unit}" for row in rows if "confirmed" in row.quantity)
    text = readme(__name__, layers=", ".join(LAYERS), pruned=PRUNED, archs=", ".join(ARCHS),
                  densities=", ".join(f"{100 * d:g} %" for d in DENSITIES), prune_epochs=PRUNE_EPOCHS,
                  fine_tune_epochs=FINE_TUNE_EPOCHS, findings=findings)
    return StudyOutput(frame, granularity_figure(frame), text, rows)
