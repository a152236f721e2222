"""BMXNet (Yang et al., ACM MM 2017): binary vs fp32 GEMM on a CPU (the CPU SIMD model), the same precision
plans on the low-bit PE array (cycles and DRAM bytes), and the model size of the CIFAR-10 ResNet-18 the
paper's size figure is for. The README (``templates/bmxnet.md``) says how and why.
"""
from __future__ import annotations

import dataclasses

import pandas as pd

from accel_sim.pipeline.catalog import load_arch
from accel_sim.systems.cpu_simd.gemm import binarize, binary_gemm, fp32_gemm, speedup
from accel_sim.systems.cpu_simd.spec import HASWELL_AVX2, HASWELL_SSE
from accel_sim.pipeline.plot.studies.bmxnet import speedup_and_size
from accel_sim.pipeline.simulate import simulate
from accel_sim.foundations.workload.storage import StorageOptions, storage_table
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme
from accel_sim.foundations.workload.layer import ConvLayer, MaxPool, Network
from accel_sim.foundations.workload.loader import load_workload

PAPER = "Yang et al., BMXNet, ACM MM 2017 (arXiv 1705.09864)"
GEMM_M, GEMM_N, KERNEL_AREA, CHANNELS = 64, 12800, 25, 256   # the paper's GEMM: K = 25 C
PUBLISHED_SPEEDUP = 13.0          # xnor_64_omp with the fp32 input binarized first, vs Cblas GEMM (paper, Fig. 1)
PUBLISHED_FULL_MB, PUBLISHED_BINARY_MB = 44.7, 1.5   # ResNet-18 on CIFAR-10, full precision / binary (paper)
SIZE_WORKLOAD = "resnet18_cifar10"  # the network of the paper's model-size figure
MB = 8 * 10 ** 6                    # bits in a (decimal) megabyte: 11.16 M fp32 weights = 44.7 MB
MIB = 8 * 2 ** 20
FULL_BITS, BINARY_BITS = 32, 1
# The max-pool after the first conv: ImageNet ResNet-18's 3x3 stride-2 pool, padding 1 (He et al., CVPR 2016,
# Table 1; torchvision resnet18: MaxPool2d(kernel_size=3, stride=2, padding=1)); the CIFAR-10 network has none.
STEM_POOLS = {"resnet18": MaxPool(3, 2, 1)}
BATCH = 8                           # images sharing each weight read, beside the batch-1 run (a parameter)


def speed_table() -> pd.DataFrame:
    """Speed-ups without and with binarizing B (its fp32 values streamed from DRAM), and ``cache_speedup``:
    with binarizing B at its compute cost alone, as if the fp32 values came from cache (a bound, not a setup
    the paper states)."""
    k = KERNEL_AREA * CHANNELS
    rows = []
    for cpu in (HASWELL_SSE, HASWELL_AVX2):
        cached = fp32_gemm(cpu, GEMM_M, k, GEMM_N).cycles / (binary_gemm(cpu, GEMM_M, k, GEMM_N).cycles
                                                             + binarize(cpu, k, GEMM_N).compute_cycles)
        rows += [{"cpu": cpu.name, "fp_vector_bits": cpu.fp_vector_bits, "fma": cpu.fma, "with_binarize": with_binarize,
                  "m": GEMM_M, "k": k, "n": GEMM_N, "speedup": speedup(cpu, GEMM_M, k, GEMM_N, with_binarize),
                  "cache_speedup": cached if with_binarize else None} for with_binarize in (False, True)]
    return pd.DataFrame(rows)


def precision_plan(network: Network, full_precision: tuple[str, ...]) -> Network:
    """``network`` with every layer binary except those named (fp32), as per-layer precisions and
    stored weight widths. A binary layer right after an fp32 one reads that layer's fp32 output
    (``activation_bits`` 32; its binarizer packs the signs on chip): the fp32 layer's output is not packed."""
    full = [layer.name in full_precision for layer in network.layers]
    layers = tuple(dataclasses.replace(layer, precision="fp32" if full[i] else "binary",
                                       weight_bits=FULL_BITS if full[i] else BINARY_BITS,
                                       activation_bits=FULL_BITS if i and full[i - 1] and not full[i]
                                       else layer.activation_bits)
                   for i, layer in enumerate(network.layers))
    return dataclasses.replace(network, layers=layers)


def with_stem_pool(network: Network) -> Network:
    """``network`` with the max-pool that follows its first conv (if :data:`STEM_POOLS` lists one) on that
    layer's ``max_pool``: the low-bit array pools in its output stage and writes the pooled map."""
    pool = STEM_POOLS.get(network.name)
    layers = tuple(dataclasses.replace(layer, max_pool=pool) if pool and index == 0 else layer
                   for index, layer in enumerate(network.layers))
    return dataclasses.replace(network, layers=layers)


def at_batch(network: Network, batch: int) -> Network:
    """``network`` with ``batch`` images a layer (a conv's batch, a matrix layer's rows), named for it."""
    layers = tuple(dataclasses.replace(layer, batch=layer.batch * batch) if isinstance(layer, ConvLayer)
                   else dataclasses.replace(layer, m=layer.m * batch) for layer in network.layers)
    return dataclasses.replace(network, name=f"{network.name}_batch{batch}", layers=layers)


def precision_plans(network: Network) -> dict[str, tuple[str, ...]]:
    """The layers kept at fp32 in each plan: all, the first (BMXNet), the first and the last."""
    first, last = network.layers[0].name, network.layers[-1].name
    return {"fp32": tuple(layer.name for layer in network.layers), "binary, first fp32": (first,),
            "binary, first + last fp32": (first, last)}


def array_table(network: Network, arch: str = "lowbit") -> pd.DataFrame:
    """Cycles and DRAM bytes of ``network`` on the low-bit PE array under each precision plan, the
    speed-up and DRAM saving over all-fp32 and the first layer's share of the time."""
    rows = []
    for plan, full in precision_plans(network).items():
        layers = simulate(load_arch(arch), precision_plan(network, full)).layers
        cycles = sum(result.cycles for result in layers)
        moved = [result.dram_read_bytes + result.dram_write_bytes for result in layers]
        rows.append({"network": network.name, "plan": plan, "array_cycles": cycles,
                     "first_layer_share": layers[0].cycles / cycles, "dram_bytes": sum(moved),
                     "first_layer_dram_bytes": moved[0], "first_layer_output_bytes": layers[0].dram_write_bytes,
                     "first_layer_input_bytes": network.layers[0].input_elements * FULL_BITS // 8,
                     "last_layer_dram_bytes": moved[-1]})
    frame = pd.DataFrame(rows)
    frame["array_speedup"] = frame["array_cycles"].iloc[0] / frame["array_cycles"]
    frame["dram_saving"] = frame["dram_bytes"].iloc[0] / frame["dram_bytes"]
    # the cap the fp32 first and last layers set: the saving if every binary layer moved no byte
    frame["fp32_ends_cap"] = frame["dram_bytes"].iloc[0] / (frame["first_layer_dram_bytes"]
                                                            + frame["last_layer_dram_bytes"])
    return frame


def size_table(network: Network) -> pd.DataFrame:
    rows = []
    for plan, full in precision_plans(network).items():
        table = storage_table(precision_plan(network, full), StorageOptions(format="dense"))
        bits = float(table["compressed_bits"].iloc[-1])
        rows.append({"network": network.name, "plan": plan, "bits": bits, "mb": bits / MB, "mib": bits / MIB})
    frame = pd.DataFrame(rows)
    frame["ratio"] = frame["bits"].iloc[0] / frame["bits"]
    return frame


def _comparisons(speed: pd.DataFrame, size: pd.DataFrame, array: pd.DataFrame,
                 batched: pd.DataFrame) -> tuple[Comparison, ...]:
    gemm = speed.set_index(["cpu", "with_binarize"])["speedup"]
    cifar = size[size["network"] == SIZE_WORKLOAD].set_index("plan")
    saving = array.set_index(["network", "plan"])["dram_saving"]
    shape = "M=64 N=12800 K=25C (C=256), Haswell"
    return (
        Comparison(f"binary / fp32 GEMM speed-up with the fp32 input binarized first (the condition of BMXNet's "
                   f"~13x), {shape}, fp32 on SSE (gap: binarizing streams 328 MB of fp32 from DRAM, 33 M cycles against "
                   "the xnor GEMM's 25.6 M; binarized from cache 10.7x, the next row; README)", "x",
                   PUBLISHED_SPEEDUP, float(gemm[("haswell_sse", True)]), f"{PAPER}, Fig. 1", tolerance=0.20),
        Comparison(f"same, the fp32 input binarized at its compute cost alone, as if read from cache (a bound: "
                   f"the paper states neither where the input lives nor the memory), {shape}, fp32 on SSE", "x",
                   PUBLISHED_SPEEDUP, float(speed.set_index(["cpu", "with_binarize"]).loc[("haswell_sse", True),
                                                                                          "cache_speedup"]),
                   f"{PAPER}, Fig. 1", tolerance=0.20),
        Comparison(f"same without binarizing the input (xnor_64 GEMM alone; no published figure), {shape}, "
                   "fp32 on SSE", "x", None, float(gemm[("haswell_sse", False)]), "model only"),
        Comparison(f"same without binarizing, fp32 on AVX2 + FMA (a wider fp32 baseline; no published figure)", "x",
                   None, float(gemm[("haswell_avx2", False)]), "model only"),
        Comparison("ResNet-18 for CIFAR-10, full-precision model size (fp32 weights)", "MB", PUBLISHED_FULL_MB,
                   float(cifar.loc["fp32", "mb"]), f"{PAPER}, model-size table", tolerance=0.10),
        Comparison("ResNet-18 for CIFAR-10, binary model size, first and last layers fp32", "MB",
                   PUBLISHED_BINARY_MB, float(cifar.loc["binary, first + last fp32", "mb"]),
                   f"{PAPER}, model-size table", tolerance=0.10),
        Comparison("ResNet-18 for CIFAR-10, binary model size, first layer fp32 (binary classifier)", "MB",
                   PUBLISHED_BINARY_MB, float(cifar.loc["binary, first fp32", "mb"]), f"{PAPER}, model-size table",
                   tolerance=0.10),
        Comparison("ResNet-18 for CIFAR-10, compression ratio, first and last layers fp32", "x",
                   PUBLISHED_FULL_MB / PUBLISHED_BINARY_MB, float(cifar.loc["binary, first + last fp32", "ratio"]),
                   f"{PAPER}: 44.7 MB -> 1.5 MB", tolerance=0.10),
        Comparison("ResNet-18 for ImageNet (workloads/resnet18.yaml), compression ratio, first and last layers fp32 "
                   "(the paper gives no ImageNet size: its 2 MB fp32 classifier caps the ratio)", "x", None,
                   float(size[size["network"] != SIZE_WORKLOAD].set_index("plan").loc["binary, first + last fp32",
                                                                                      "ratio"]), "model only"),
        Comparison("low-bit PE array, ResNet-18 for CIFAR-10, DRAM bytes fp32 / binary (first and last layers fp32)",
                   "x", None, float(saving[(SIZE_WORKLOAD, "binary, first + last fp32")]), "model only"),
        _imagenet_dram_row(array),
        Comparison(f"low-bit PE array, ResNet-18 for ImageNet at batch {BATCH} (each weight read once a batch), DRAM "
                   "bytes fp32 / binary (first and last layers fp32, the stem max-pool in conv1's output stage)", "x",
                   None, float(batched.set_index("plan").loc["binary, first + last fp32", "dram_saving"]),
                   "model only"),
    )


def _imagenet_dram_row(array: pd.DataFrame) -> Comparison:
    """The ImageNet DRAM saving with its hand count: what the fp32 ends and the binary weights move."""
    row = array[array["network"] != SIZE_WORKLOAD].set_index("plan").loc["binary, first + last fp32"]
    first, out, last = (row[c] / 1e6 for c in ("first_layer_dram_bytes", "first_layer_output_bytes",
                                                  "last_layer_dram_bytes"))
    rest = row["dram_bytes"] / 1e6 - first - last
    # what any loop order moves: every stored weight once, the fp32 image, the first layer's (pooled) fp32 output
    # written and read back by the first binary layer
    floor = (row["bits"] / 8 + row["first_layer_input_bytes"] + 2 * row["first_layer_output_bytes"]) / 1e6
    allowed = array[array["network"] != SIZE_WORKLOAD].set_index("plan").loc["fp32", "dram_bytes"] / 25 / 1e6
    return Comparison(
        f"low-bit PE array, ResNet-18 for ImageNet (workloads/resnet18.yaml, batch 1, the stem max-pool in conv1's "
        f"output stage), DRAM bytes fp32 / binary (first and last layers fp32; gap to 25x from the mechanism: of "
        f"{row['dram_bytes'] / 1e6:.2f} MB the fp32 7x7 conv moves {first:.2f} MB ({out:.2f} MB of it its pooled "
        f"fp32 output, the rest its input streamed once and its weights), the fp32 512x1000 classifier {last:.2f} MB, "
        f"the binary layers {rest:.2f} MB (the first reading that pooled map at fp32, then 1-bit weights read once "
        f"and packed signs); every weight once, the image and the pooled map written and read back already make "
        f"{floor:.2f} MB, more than the {allowed:.2f} MB 25x allows; README)", "x", None,
        float(row["dram_saving"]), "model only")


@study("bmxnet", "BMXNet: binary vs fp32 GEMM speed-up on a CPU, ResNet-18 model size (CIFAR-10)", cpu_s=2.1,
       writes_operands=False)
def run(workload: str = "resnet18") -> StudyOutput:
    speed = speed_table()
    networks = tuple(with_stem_pool(load_workload(name)) for name in (workload, SIZE_WORKLOAD))
    size = pd.concat([size_table(network).merge(array_table(network), on=["network", "plan"])
                      for network in networks], ignore_index=True)
    batched = array_table(at_batch(networks[0], BATCH))
    results = pd.concat([speed.assign(table="speed"), size.assign(table="size"), batched.assign(table="batch")],
                        ignore_index=True)
    by_plan = size.set_index(["network", "plan"])
    plan = "binary, first + last fp32"
    text = readme(__name__, imagenet_saving=f"{by_plan.loc[(workload, plan), 'dram_saving']:.1f}",
                  cifar_saving=f"{by_plan.loc[(SIZE_WORKLOAD, plan), 'dram_saving']:.1f}",
                  binarized=f"{speed.set_index(['cpu', 'with_binarize']).loc[('haswell_sse', True), 'speedup']:.1f}",
                  binarized_cached=f"{speed.set_index(['cpu', 'with_binarize']).loc[('haswell_sse', True), 'cache_speedup']:.1f}",
                  imagenet_cap=f"{by_plan.loc[(workload, plan), 'fp32_ends_cap']:.1f}", batch=BATCH,
                  batch_saving=f"{batched.set_index('plan').loc[plan, 'dram_saving']:.1f}")
    figure = speedup_and_size(speed, size[size["network"] == SIZE_WORKLOAD])
    return StudyOutput(results=results, figure=figure, readme=text, comparisons=_comparisons(speed, size, size, batched))
