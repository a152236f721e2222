"""BMXNet (Yang et al., ACM MM 2017): binary vs fp32 GEMM on a CPU (the CPU SIMD model), the same precision
plans on the low-bit PE array, and ResNet-18's model size. The README (``templates/bmxnet.md``) says how and why.
"""
from __future__ import annotations

import dataclasses

import pandas as pd

from accel_sim.pipeline.catalog import load_arch
from accel_sim.systems.cpu_simd.gemm import speedup
from accel_sim.systems.cpu_simd.spec import HASWELL_AVX2, HASWELL_SSE
from accel_sim.pipeline.plot.studies.bmxnet import speedup_and_size
from accel_sim.pipeline.simulate import simulate
from accel_sim.foundations.workload.storage import StorageOptions, storage_table
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme
from accel_sim.foundations.workload.layer import Network
from accel_sim.foundations.workload.loader import load_workload

PAPER = "Yang et al., BMXNet, ACM MM 2017 (arXiv 1705.09864)"
GEMM_M, GEMM_N, KERNEL_AREA, CHANNELS = 64, 12800, 25, 256   # the paper's GEMM: K = 25 C
PUBLISHED_SPEEDUP = 13.0          # xnor_64_omp vs Cblas GEMM (paper, Fig. 1; issue 16)
PUBLISHED_BINARIZED_SPEEDUP = 10.0  # binarized input + xnor_64_omp vs Cblas, as read off Fig. 1 (hpi-xnor/BMXNet#6)
PUBLISHED_FULL_MB, PUBLISHED_BINARY_MB = 44.7, 1.5   # ResNet-18 model size (paper; issue 16)
MIB = 8 * 2 ** 20
FULL_BITS, BINARY_BITS = 32, 1


def speed_table() -> pd.DataFrame:
    k = KERNEL_AREA * CHANNELS
    return pd.DataFrame([{"cpu": cpu.name, "fp_vector_bits": cpu.fp_vector_bits, "fma": cpu.fma,
                          "with_binarize": with_binarize, "m": GEMM_M, "k": k, "n": GEMM_N,
                          "speedup": speedup(cpu, GEMM_M, k, GEMM_N, with_binarize)}
                         for cpu in (HASWELL_SSE, HASWELL_AVX2) for with_binarize in (False, True)])


def precision_plan(network: Network, full_precision: tuple[str, ...]) -> Network:
    """``network`` with every layer binary except those named (fp32), as per-layer precisions and
    stored weight widths."""
    layers = tuple(dataclasses.replace(layer, precision="fp32" if layer.name in full_precision else "binary",
                                       weight_bits=FULL_BITS if layer.name in full_precision else BINARY_BITS)
                   for layer in network.layers)
    return dataclasses.replace(network, layers=layers)


def precision_plans(network: Network) -> dict[str, tuple[str, ...]]:
    """The layers kept at fp32 in each plan: all, the first (BMXNet), the first and the last."""
    first, last = network.layers[0].name, network.layers[-1].name
    return {"fp32": tuple(layer.name for layer in network.layers), "binary, first fp32": (first,),
            "binary, first + last fp32": (first, last)}


def array_table(network: Network, arch: str = "lowbit") -> pd.DataFrame:
    """Cycles of ``network`` on the low-bit PE array under each precision plan, the speed-up over
    all-fp32 and the share of the first layer."""
    rows = []
    for plan, full in precision_plans(network).items():
        layers = simulate(load_arch(arch), precision_plan(network, full)).layers
        cycles = sum(result.cycles for result in layers)
        rows.append({"plan": plan, "array_cycles": cycles, "first_layer_share": layers[0].cycles / cycles})
    frame = pd.DataFrame(rows)
    frame["array_speedup"] = frame["array_cycles"].iloc[0] / frame["array_cycles"]
    return frame


def size_table(network: Network) -> pd.DataFrame:
    rows = []
    for plan, full in precision_plans(network).items():
        table = storage_table(precision_plan(network, full), StorageOptions(format="dense"))
        bits = float(table["compressed_bits"].iloc[-1])
        rows.append({"plan": plan, "bits": bits, "mib": bits / MIB})
    frame = pd.DataFrame(rows)
    frame["ratio"] = frame["bits"].iloc[0] / frame["bits"]
    return frame


@study("bmxnet", "BMXNet: binary vs fp32 GEMM speed-up on a CPU, ResNet-18 model size")
def run(workload: str = "resnet18") -> StudyOutput:
    speed = speed_table()
    network = load_workload(workload)
    size = size_table(network).merge(array_table(network), on="plan")
    gemm = speed.set_index(["cpu", "with_binarize"])["speedup"]
    ratio = size.set_index("plan")["ratio"]
    mib = size.set_index("plan")["mib"]
    comparisons = (
        Comparison("binary / fp32 GEMM speed-up, M=64 N=12800 K=25C (C=256), Haswell, fp32 on SSE", "x",
                   PUBLISHED_SPEEDUP, float(gemm[("haswell_sse", False)]), f"{PAPER}, Fig. 1", tolerance=0.30),
        Comparison("same, fp32 on AVX2 + FMA (a wider fp32 baseline; no published figure)", "x", None,
                   float(gemm[("haswell_avx2", False)]), "model only"),
        Comparison("speed-up with binarizing the fp32 input (SSE)", "x", PUBLISHED_BINARIZED_SPEEDUP,
                   float(gemm[("haswell_sse", True)]), f"{PAPER}, Fig. 1 as read in hpi-xnor/BMXNet#6"),
        Comparison("ResNet-18 full-precision model size", "MiB", PUBLISHED_FULL_MB, float(mib["fp32"]),
                   f"{PAPER}, model-size table", tolerance=0.10),
        Comparison("ResNet-18 binary model size, first layer fp32", "MiB", PUBLISHED_BINARY_MB,
                   float(mib["binary, first fp32"]), f"{PAPER}, model-size table"),
        Comparison("ResNet-18 compression ratio, first layer fp32", "x", PUBLISHED_FULL_MB / PUBLISHED_BINARY_MB,
                   float(ratio["binary, first fp32"]), f"{PAPER}: 44.7 MB -> 1.5 MB ('up to 29x')",
                   tolerance=0.10),
        Comparison("ResNet-18 compression ratio, first and last layers fp32", "x",
                   PUBLISHED_FULL_MB / PUBLISHED_BINARY_MB, float(ratio["binary, first + last fp32"]),
                   f"{PAPER} (the 1.5 MB figure is only reachable with a binary classifier)"),
    )
    results = pd.concat([speed.assign(table="speed"), size.assign(table="size")], ignore_index=True)
    text = readme(__name__)
    return StudyOutput(results=results, figure=speedup_and_size(speed, size), readme=text,
                       comparisons=comparisons)
