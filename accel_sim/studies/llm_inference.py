"""LLM inference on the A100-like tensor core (Llama-2-7B): tokens per second and energy per token,
prefill vs decode, dense vs 2:4 vs INT4 (weight-only) vs both, batch 1 to 256, with the roofline of each
point and the batch where decode turns from DRAM-bound to compute-bound; decode on the DLU and on a
streaming systolic array. The README (``templates/llm_inference.md``) says how and why.
"""
from __future__ import annotations

import dataclasses

import pandas as pd

from accel_sim.foundations.config.loader import REPO_ROOT
from accel_sim.foundations.energy.table import load_energy_table
from accel_sim.foundations.workload.layer import BatchedGemmLayer, VectorLayer
from accel_sim.foundations.workload.llm.compression import Compression
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.foundations.workload.memory import network_footprint
from accel_sim.pipeline.catalog import ArchSpec, load_arch
from accel_sim.pipeline.plot.studies.llm_inference import throughput_and_roofline
from accel_sim.pipeline.simulate import simulate, simulate_layer
from accel_sim.studies.registry import Comparison, StudyOutput, study
from accel_sim.studies.template import readme

ARCH = "ampere_a100"
MODEL = REPO_ROOT / "workloads" / "llm" / "configs" / "llama_2_7b.json"
CONTEXT = 1024
BATCHES = (1, 4, 16, 64, 256)
PREFILL_BATCHES = (1, 4, 16)   # prefill is compute-bound from batch 1: larger batches change little
VARIANTS = {"dense": Compression(), "2:4": Compression.parse("2:4"), "int4": Compression.parse("dense", 4),
            "2:4+int4": Compression.parse("2:4", 4)}
GPTQ = ("Frantar et al., GPTQ, ICLR 2023 (abstract): end-to-end generation speed-up over FP16 'around 3.25x' on "
        "NVIDIA A100 (OPT-175B, 3-bit weights; the FP16 baseline spans several GPUs)")
WHITEPAPER = "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 2:4 sparse tensor cores double the math rate"
COLUMNS = ["phase", "variant", "batch", "context", "tokens", "cycles", "time_s", "tokens_per_s", "energy_j",
           "energy_per_token_mj", "macs", "dram_bytes", "intensity_flop_per_byte", "attainable_tflops",
           "achieved_tflops", "dram_bound_share", "weight_gemm_dram_bound_share", "vector_share", "memory_gb",
           "fits_device_memory"]


def step_row(arch: ArchSpec, phase: str, variant: str, batch: int, context: int = CONTEXT,
             compression: Compression | None = None) -> dict[str, object]:
    """One step of ``VARIANTS[variant]`` (or ``compression``, labelled ``variant``)."""
    config = read_hf_config(MODEL)
    network = transformer_network(config, InferenceStep(phase, context, batch),
                                  compression if compression is not None else VARIANTS[variant])
    table = load_energy_table(arch.energy_table)
    cycles = energy = macs = dram = dram_bound = vector = weight_cycles = weight_dram_bound = 0.0
    for layer in network.layers:
        in_block = layer.name.startswith("l") and layer.name[1:3].isdigit()
        if in_block and not layer.name.startswith("l00_"):
            continue  # the other blocks have the same shapes: block 0 counted `layers` times
        times = config.layers if in_block else 1
        run = simulate_layer(arch, layer, table)   # from the shape: generated operands are never drawn
        result = run.result
        cycles += times * result.cycles
        energy += times * run.energy.total_pj
        macs += times * result.macs_dense
        dram += times * (result.dram_read_bytes + result.dram_write_bytes)
        dram_bound += times * result.cycles * result.metrics.get("bound_dram", 0.0)
        vector += times * result.cycles * isinstance(layer, VectorLayer)
        if not isinstance(layer, (VectorLayer, BatchedGemmLayer)):  # the weight GEMMs (projections, LM head)
            weight_cycles += times * result.cycles
            weight_dram_bound += times * result.cycles * result.metrics.get("bound_dram", 0.0)
    tc = arch.tensor_core
    footprint = network_footprint(network, arch.word_bits)   # each step is timed layer by layer: the device
    tokens = batch * (context if phase == "prefill" else 1)  # memory check of simulate() is made here
    time_s = cycles / arch.clock
    intensity = 2 * macs / dram
    peak_flops = 2 * tc.sms * tc.tensor_cores_per_sm * tc.dense_macs_per_cycle * arch.clock
    return {"phase": phase, "variant": variant, "batch": batch, "context": context, "tokens": tokens,
            "cycles": int(cycles), "time_s": time_s, "tokens_per_s": tokens / time_s, "energy_j": energy * 1e-12,
            "energy_per_token_mj": energy * 1e-9 / tokens, "macs": int(macs), "dram_bytes": int(dram),
            "intensity_flop_per_byte": intensity,
            "attainable_tflops": min(peak_flops, tc.dram_bandwidth * arch.clock * intensity) / 1e12,
            "achieved_tflops": 2 * macs / time_s / 1e12, "dram_bound_share": dram_bound / cycles,
            "weight_gemm_dram_bound_share": weight_dram_bound / weight_cycles, "vector_share": vector / cycles,
            "memory_gb": footprint.total_bytes / 1e9, "fits_device_memory": footprint.fits(arch.memory_capacity)}


def inference_table(batches: tuple[int, ...] = BATCHES, prefill_batches: tuple[int, ...] = PREFILL_BATCHES,
                    arch_name: str = ARCH) -> pd.DataFrame:
    arch = load_arch(arch_name)
    rows = [step_row(arch, phase, variant, batch)
            for phase, chosen in (("decode", batches), ("prefill", prefill_batches)) for variant in VARIANTS
            for batch in chosen]
    return pd.DataFrame(rows, columns=COLUMNS)


def crossover(frame: pd.DataFrame) -> pd.DataFrame:
    """Per variant: the smallest decode batch whose weight GEMMs are no longer DRAM-bound (None:
    none up to the largest batch). The attention GEMMs read each sequence's own KV cache, so they
    stay DRAM-bound at any batch; the whole step's DRAM-bound share is given at the largest batch."""
    decode = frame[frame.phase == "decode"]
    rows = []
    for variant, part in decode.groupby("variant", sort=False):
        compute = part[part.weight_gemm_dram_bound_share < 0.5]
        rows.append({"variant": variant, "crossover_batch": int(compute.batch.min()) if len(compute) else None,
                     "step_dram_bound_share_b1": float(part.dram_bound_share.iloc[0]),
                     "step_dram_bound_share_largest_batch": float(part.dram_bound_share.iloc[-1])})
    return pd.DataFrame(rows)


DLU_ARCH = "dlu"
DLU_BATCHES = (1, 4, 16, 64)
DLU_VARIANTS = {"dense": Compression(), "int8": Compression.parse("dense", 8)}


def dlu_decode(batches: tuple[int, ...] = DLU_BATCHES) -> pd.DataFrame:
    """Decode on the DLU (INT16 datapath, 128 B/cycle per DRAM stream): the share of the weight
    GEMMs' cycles spent waiting on DRAM, per batch, dense and with INT8 weights (one Llama-2-7B
    block, simulated with operands: the DLU's counting is cheap)."""
    arch = load_arch(DLU_ARCH)
    config = read_hf_config(MODEL)
    one_block = dataclasses.replace(config, layers=1)
    rows = []
    for variant, compression in DLU_VARIANTS.items():
        for batch in batches:
            run = simulate(arch, transformer_network(one_block, InferenceStep("decode", CONTEXT, batch), compression))
            weights = [r for layer, r in zip(run.network.layers, run.layers)
                       if not isinstance(layer, (VectorLayer, BatchedGemmLayer))]
            rows.append({"variant": variant, "batch": batch,
                         "weight_gemm_stall_share": sum(r.stall_cycles for r in weights) / sum(r.cycles for r in weights),
                         "block_cycles": sum(r.cycles for r in run.layers)})
    return pd.DataFrame(rows)


SYSTOLIC_ARCH = "tpu_like_128x128_ws_streaming"
SYSTOLIC_BATCHES = (1, 16, 64, 128, 256)


def systolic_decode(batches: tuple[int, ...] = SYSTOLIC_BATCHES) -> pd.DataFrame:
    """Decode weight GEMMs (one Llama-2-7B block and the LM head, 8-bit words) on the 128 x 128
    weight-stationary array streaming its operands (``operand_fetch: streaming``, 32 B/cycle):
    their cycles, compute cycles and weight-stream time (DRAM words / bandwidth) per batch. A batch
    is compute-bound when the array's compute cycles reach the weight-stream time (the attention
    GEMMs read each sequence's own KV cache and stay DRAM-bound; they are left out)."""
    arch = load_arch(SYSTOLIC_ARCH)
    one_block = dataclasses.replace(read_hf_config(MODEL), layers=1)
    words_per_cycle = arch.dram.bandwidth / arch.word_bytes
    rows = []
    for batch in batches:
        layers = [layer for layer in transformer_network(one_block, InferenceStep("decode", CONTEXT, batch)).layers
                  if not isinstance(layer, (VectorLayer, BatchedGemmLayer))]
        results = [simulate_layer(arch, layer).result for layer in layers]
        weight_words = sum(layer.weight_elements for layer in layers)
        cycles, compute = sum(r.cycles for r in results), sum(r.compute_cycles for r in results)
        stream = weight_words / words_per_cycle
        rows.append({"batch": batch, "weight_gemm_cycles": cycles, "compute_cycles": compute,
                     "weight_stream_cycles": stream, "cycles_over_stream": cycles / stream,
                     "bound": "compute" if compute >= stream else "dram"})
    return pd.DataFrame(rows)


def _ratio(dlu: pd.DataFrame, variant: str, batch: int) -> float:
    at = dlu[dlu.batch == batch].set_index("variant").block_cycles
    return float(at["dense"] / at[variant])


def speedup(frame: pd.DataFrame, phase: str, variant: str, batch: int) -> float:
    at = frame[(frame.phase == phase) & (frame.batch == batch)].set_index("variant")
    return float(at.loc[variant, "tokens_per_s"] / at.loc["dense", "tokens_per_s"])


def _unfit(frame: pd.DataFrame) -> str:
    """The steps whose weights + KV cache + activations exceed the device's memory, named."""
    over = frame[~frame.fits_device_memory]
    steps = (f"{r.phase} {r.variant} batch {r.batch} ({r.memory_gb:.1f} GB)" for r in over.itertuples())
    return ", ".join(steps) or "none"


def _readme(cross: pd.DataFrame, big: int, dlu: pd.DataFrame, systolic: pd.DataFrame, unfit: str) -> str:
    compute_bound = systolic[systolic.bound == "compute"].batch
    crossovers = (f"- {r.variant}: {r.crossover_batch if r.crossover_batch is not None else f'none up to {big}'}"
                  for r in cross.itertuples())
    shares = (f"- {v}: " + ", ".join(f"batch {r.batch} {r.weight_gemm_stall_share:.2f}" for r in part.itertuples())
              for v, part in dlu.groupby("variant", sort=False))
    return readme(
        __name__, crossovers="\n".join(crossovers), dlu_shares="\n".join(shares), unfit=unfit,
        int8_batch1=f"{_ratio(dlu, 'int8', 1):.2f}", dlu_largest=max(dlu.batch), systolic_arch=SYSTOLIC_ARCH,
        first_compute=int(compute_bound.min()) if len(compute_bound) else "none",
        systolic_ratios=", ".join(f"batch {r.batch} {r.cycles_over_stream:.3f} ({r.bound})"
                                  for r in systolic.itertuples()))


@study("llm-inference", "LLM inference (Llama-2-7B, A100-like): tokens/s and energy/token, sparse and INT4", cpu_s=2.8)
def llm_inference(batches: tuple[int, ...] = BATCHES, prefill_batches: tuple[int, ...] = PREFILL_BATCHES,
                  arch_name: str = ARCH) -> StudyOutput:
    frame = inference_table(batches, prefill_batches, arch_name)
    cross = crossover(frame)
    arch = load_arch(arch_name)
    three_bit = (step_row(arch, "decode", "dense", 1),
                 step_row(arch, "decode", "int3", 1, compression=Compression.parse("dense", 3)))
    gptq_speedup = three_bit[1]["tokens_per_s"] / three_bit[0]["tokens_per_s"]
    big, prefill_big = max(batches), max(prefill_batches)
    comparisons = (
        Comparison("decode speed-up of 3-bit weights over FP16, batch 1 (simulated: Llama-2-7B on one A100; "
                   "published: OPT-175B, FP16 on several GPUs)", "x", 3.25, gptq_speedup, GPTQ),
        Comparison(f"prefill speed-up of 2:4 weights over dense at batch {prefill_big} x {CONTEXT} tokens "
                   "(published: the math-rate ceiling)", "x", 2.0, speedup(frame, "prefill", "2:4", prefill_big),
                   WHITEPAPER),
    )
    dlu, systolic = dlu_decode(), systolic_decode()
    text = _readme(cross, big, dlu, systolic, _unfit(frame))
    return StudyOutput(results=frame, figure=throughput_and_roofline(frame, arch_name), readme=text,
                       comparisons=comparisons, tables={"crossover": cross, "dlu": dlu, "systolic": systolic})

