"""The ``tensor_core:`` section of an arch config (family: tensor_core).

An Ampere-style GPU running one GEMM kernel: SMs with tensor cores that do 2:4 (1:2 for
32-bit words) structured-sparse products at twice the dense rate, fed through the SM
memory path (L2 -> shared memory -> register file -> tensor core). Tile shapes are the
kernel's: a CTA tile per SM, warp tiles inside it, MMA instructions inside those.

Orientation (as NVIDIA's sparse MMA has it): the tensor core computes C (M x N) =
A (M x K, the 2:4 operand, compressed along K) x B (K x N, dense). A layer's weights
(k x n) are A transposed, so M = the layer's ``n`` (output features / filters),
N = the layer's ``m`` (batch x output pixels), K = the layer's ``k``.
What each field does per stage: :mod:`accel_sim.models.tensor_core.fast` and :mod:`accel_sim.models.tensor_core.reference`.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.compress.quantization.microscaling import BLOCK_FORMATS
from accel_sim.foundations.config.schema import spec_field
from accel_sim.foundations.errors import InputError

WHITEPAPER = "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020)"
SPARSITY = f"{WHITEPAPER}, fine-grained structured sparsity section; Mishra et al., arXiv 2104.08378 (2021)"
PTX = "NVIDIA PTX ISA (mma.sync.m16n8k16 dense / mma.sp.m16n8k32 sparse, FP16)"
CUTLASS = "CUTLASS 2.x sm80 defaults (DefaultGemmConfiguration: 128x256x64 CTA, 64x64 warps, 3 stages)"
CUTLASS_MULTISTAGE = ("CUTLASS include/cutlass/gemm/threadblock/mma_multistage.h and mma_sparse_multistage.h: the prologue "
                      "issues kStages - 1 stages of cp.async copies; each main-loop iteration issues the copies of the stage "
                      "kStages - 1 ahead while computing one, then waits with cp_async_wait<kStages - 2>")
LOADS_IN_FLIGHT = ("unbounded", "stages")
DRAM_RATES = ("sustained", "in_flight")
LITTLE = ("Little's law: a read stream's rate is the bytes it keeps in flight over the memory latency; te42kyfo/gpu-benches "
          "gpu-stream (main.cu: a read kernel at rising block size, 2 blocks per SM, one 8-byte load per thread)")
TINYGEMM = ("pytorch/pytorch aten/src/ATen/native/cuda/int4mm.cu (tinygemm_m16n8k16_chunk_kernel: 8 warps of 8 k-tiles "
            "of 16 a loop iteration, n / 8 blocks of 8 output features; each iteration's loads issue after the previous "
            "iteration's MMAs)")
SHARED_MEMORY_FILLS = ("async", "registers")
ASYNC_COPY = ("NVIDIA CUDA C++ Programming Guide, Asynchronous Data Copies (memcpy_async / cp.async, compute "
              "capability 8.0 and later); NVIDIA PTX ISA, cp.async and cp.async.wait_group; CUTLASS "
              "include/cutlass/gemm/threadblock/mma_multistage.h (sm80) and mma_pipelined.h (sm70: global loads "
              "into registers, then stored to shared memory)")
SMALL_KERNELS = ("te42kyfo/gpu-benches gpu-small-kernels (10,000 back-to-back SCALE kernels; a100_80_graph.txt under a "
                 "CUDA graph): time against bytes for the data sets beyond the L2 fits a fixed cost per kernel plus "
                 "bytes over a sustained rate")
TRTLLM_SPLIT_K = ("TensorRT-LLM cpp/tensorrt_llm/kernels/cutlass_kernels/cutlass_heuristic.cpp (estimate_best_config_from_occupancies: "
                  "the split-K factor whose last wave leaves the smallest fraction of the SMs idle, fewer waves within 0.1; "
                  "no split when N >= 256 x SMs; is_valid_split_k_factor: k_tile 64) "
                  "and fpA_intB_gemm/fpA_intB_gemm.h (SPLIT_K_LIMIT = 7, "
                  "SPLIT_K_SERIAL); github.com/NVIDIA/TensorRT-LLM")
FLASH_SPLITS = ("FlashAttention csrc/flash_attn/flash_api.cpp, num_splits_heuristic (no split when the (batch, head) "
                "blocks fill 80 % of the SMs; else the fewest splits whose wave efficiency is within 85 % of the best; at most "
                "128) and set_params_splitkv; github.com/Dao-AILab/flash-attention")
BLOCK_FORMAT_CHOICES = ("none", *BLOCK_FORMATS)
OCP_MX = "OCP Microscaling Formats (MX) v1.0 Specification (2023); NVIDIA NVFP4 blog (2025): E2M1, E4M3 scale per 16"
CUTLASS_SPARSE = ("CUTLASS sm80 sparse FP16 GEMMs: test/unit/gemm/device/gemm_f16t_f16n_f32t_tensor_op_f32_sparse_sm80.cu "
                  "(threadblock / warp tiles and stages), examples/15_ampere_sparse_tensorop_gemm; github.com/NVIDIA/cutlass")


@dataclass(frozen=True)
class KernelTile:
    """One GEMM kernel's tile shape (a CTA tile, its warp tiles, its software-pipeline depth)."""

    m: int = spec_field("CTA tile rows of C (along the 2:4 operand A = the layer's weights' output side).",
                        positive=True, source=CUTLASS)
    n: int = spec_field("CTA tile columns of C (along the dense operand B = the layer's batch x pixels side).",
                        positive=True, source=CUTLASS)
    k: int = spec_field("Reduction length one pipeline stage covers, in dense (uncompressed) K.",
                        positive=True, source=CUTLASS)
    warp_m: int = spec_field("Warp tile rows (each warp computes a warp_m x warp_n block of the CTA tile).",
                             positive=True, source=CUTLASS)
    warp_n: int = spec_field("Warp tile columns.", positive=True, source=CUTLASS)
    stages: int = spec_field("Shared-memory pipeline stages (cp.async multistage); only checked against "
                             "the shared-memory capacity.", 3, positive=True, source=CUTLASS)
    dram_rate: str = spec_field(
        "The rate of the kernel's DRAM reads. 'sustained': every round at ``dram_bandwidth``. 'in_flight': the "
        "kernel keeps one stage of its loads in flight per CTA and no more (its next stage's loads issue after this "
        "stage's MMAs), so a wave's DRAM round moves at the rate ``dram_read_rates`` gives for the round's bytes "
        "per SM: a partial last wave keeps fewer bytes in flight and reads slower.", "sustained",
        choices=DRAM_RATES, source=f"{LITTLE}; {TINYGEMM}")

    def __post_init__(self) -> None:
        problems = []
        if self.m % self.warp_m:
            problems.append(f"tile m {self.m} is not a multiple of warp_m {self.warp_m}")
        if self.n % self.warp_n:
            problems.append(f"tile n {self.n} is not a multiple of warp_n {self.warp_n}")
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def warps(self) -> int:
        return (self.m // self.warp_m) * (self.n // self.warp_n)

    def __str__(self) -> str:
        return f"{self.m}x{self.n}x{self.k}/w{self.warp_m}x{self.warp_n}"


def _default_kernels() -> tuple[KernelTile, ...]:
    return (KernelTile(128, 256, 64, 64, 64), KernelTile(128, 128, 32, 64, 64),
            KernelTile(64, 64, 64, 32, 32), KernelTile(128, 16, 64, 32, 16), KernelTile(64, 8, 128, 16, 8))


@dataclass(frozen=True)
class DramRatePoint:
    """One point of a read stream's measured rate against the bytes it keeps in flight per SM."""

    in_flight: int = spec_field("Bytes of reads in flight per SM.", unit="size", positive=True, source=LITTLE)
    bandwidth: float = spec_field("DRAM read rate all SMs together reach with that many bytes in flight per SM.",
                                  unit="bandwidth", positive=True, source=LITTLE)


@dataclass(frozen=True)
class TensorCoreSpec:
    """Ampere-style sparse tensor core (2:4 structured sparsity)."""

    sms: int = spec_field("Streaming multiprocessors (one CTA runs per SM at a time).", 108,
                          positive=True, source=f"{WHITEPAPER}: 108 SMs")
    tensor_cores_per_sm: int = spec_field(
        "Tensor cores per SM, one per SM sub-partition; a CTA's warps are spread over them round robin.",
        4, positive=True, source=f"{WHITEPAPER}: 4 tensor cores per SM")
    dense_macs_per_cycle: int = spec_field(
        "Dense multiply-accumulates per cycle of one tensor core at the arch's word width.", 256,
        positive=True, source=f"{WHITEPAPER}: 256 FP16 FMA per clock per tensor core (312 TFLOPS)")
    sparse_support: bool = spec_field(
        "Run layers marked N:M (matching the hardware pattern) on the sparse tensor core path; false "
        "runs every layer dense (the dense-only GPU).", True, source=SPARSITY)
    nm_n: int = spec_field("N of the hardware pattern for 8- and 16-bit words (kept values per group).", 2,
                           positive=True, source=f"{SPARSITY}: 2:4 for FP16 / BF16 / INT8")
    nm_m: int = spec_field("M of the hardware pattern for 8- and 16-bit words (group length along K).", 4,
                           positive=True, source=f"{SPARSITY}: 2:4")
    nm_n_32bit: int = spec_field("N of the hardware pattern for 32-bit (TF32) words.", 1, positive=True,
                                 source=f"{SPARSITY}: 1:2 for TF32")
    nm_m_32bit: int = spec_field("M of the hardware pattern for 32-bit (TF32) words.", 2, positive=True,
                                 source=f"{SPARSITY}: 1:2 for TF32")
    metadata_bits_per_value: int = spec_field(
        "Metadata bits stored and fetched with every kept value of the 2:4 operand.", 2, positive=True,
        source=f"{SPARSITY}: two 2-bit positions per group of 4 (FP16 2:4 = 36 bits per 4 values)")
    accumulator_bits: int = spec_field("Width of the C / D accumulator fragments (FP32 accumulate).", 32,
                                       positive=True, source=f"{WHITEPAPER}: FP16 inputs, FP32 accumulation")
    mma_m: int = spec_field("MMA instruction rows (per warp).", 16, positive=True, source=PTX)
    mma_n: int = spec_field("MMA instruction columns: the dense operand's granularity (a batch of 1 pads "
                            "to it).", 8, positive=True, source=PTX)
    mma_k: int = spec_field("MMA instruction reduction length of the dense instruction; the sparse one "
                            "covers M/N times more dense K with the same A fragment.", 16, positive=True,
                            source=PTX)
    register_file_bandwidth: float = spec_field(
        "Register-file operand read bandwidth of one SM sub-partition into its tensor core (A, metadata, "
        "B and C fragments of every MMA). NVIDIA publishes no number: estimate, the smallest bandwidth that "
        "lets every sparse MMA issue back to back, as the whitepaper's 2x sparse peaks need: INT8 m16n8k64 "
        "reads A 512 B + metadata 128 B + B 512 B + C 512 B per 8 cycles = 208 B/clk (FP16 m16n8k32: "
        "200 B/clk).", 208.0, unit="bandwidth", positive=True,
        source="estimate: NVIDIA publishes no number (reasoning in the description)")
    shared_memory_bandwidth: float = spec_field(
        "Shared-memory bandwidth of one SM, reads (ldmatrix into registers) and writes (cp.async fills) "
        "together.", 128.0, unit="bandwidth", positive=True,
        source="CUDA C Programming Guide: 32 banks x 32 bits per clock per SM")
    shared_memory_size: int = spec_field("Shared memory per SM a kernel can use (pipeline stages must fit).",
                                         164 * 1024, unit="size", positive=True,
                                         source=f"{WHITEPAPER}: up to 164 KB shared memory per SM")
    register_file_size: int = spec_field("Register file per SM (for the energy table's capacity lookup).",
                                         256 * 1024, unit="size", positive=True,
                                         source=f"{WHITEPAPER}: 256 KB register file per SM")
    l2_bandwidth: float = spec_field("L2 read bandwidth, all SMs together (shared by the CTAs of a wave).",
                                     5120.0, unit="bandwidth", positive=True,
                                     source=f"{WHITEPAPER}: L2 read bandwidth 5120 bytes/clk")
    l2_to_sm_bandwidth: float = spec_field(
        "Bandwidth of one SM's port to L2 (caps a CTA's fill rate when few CTAs share the L2).", 64.0,
        unit="bandwidth", positive=True, source="estimate: NVIDIA publishes no per-SM L2 port width; 64 B/clk per SM, as on Volta")
    l2_size: int = spec_field("L2 capacity: operands that fit together are read from DRAM once.",
                              40 * 1024 * 1024, unit="size", positive=True,
                              source=f"{WHITEPAPER}: 40 MB L2")
    dram_bandwidth: float = spec_field(
        "DRAM (HBM2) bandwidth a streaming kernel sustains, all SMs together (the shipped A100 configs set the "
        "measured read-stream rate, below the datasheet's pin rate).", 1102.8, unit="bandwidth", positive=True,
        source=f"{WHITEPAPER}: 1555 GB/s at the 1410 MHz clock = 1102.8 B/clk")
    memory_latency: int = spec_field(
        "Cycles from a stage's first request to its data in shared memory (pipeline fill, paid once per "
        "wave of CTAs).", 400, unit="cycles", minimum=0,
        source="estimate: NVIDIA publishes no latency; a few hundred cycles, as GPU microbenchmarks report; the shipped A100 "
        "configs set the measured DRAM pointer-chase latency (te42kyfo/gpu-benches gpu-latency)")
    kernel_launch_cycles: int = spec_field(
        "Cycles every kernel (every tensor-core layer) costs before its first CTA starts: the GPU-side gap between "
        "back-to-back kernels (launch, CTA rasterisation, drain). 0: kernels start back to back.", 0, unit="cycles",
        minimum=0, source="the shipped A100 configs set the measured back-to-back time of a minimal kernel under a "
        "CUDA graph (te42kyfo/gpu-benches gpu-small-kernels/a100_80_graph.txt)")
    dram_stream_cycles: int = spec_field(
        "Cycles a kernel that reads DRAM costs beyond its launch gap (``kernel_launch_cycles``), its waves' memory "
        "latency and its bytes at ``dram_bandwidth``: the ramp and drain of a DRAM stream, paid once, after the last "
        "wave, by every kernel with DRAM reads. 0: none. The shipped A100 80GB configs set the intercept of "
        "back-to-back DRAM-streaming kernels under a CUDA graph less the launch gap and one memory latency.", 0,
        unit="cycles", minimum=0, source=SMALL_KERNELS)
    loads_in_flight: str = spec_field(
        "How far a CTA's loads may run ahead of its tensor cores. 'unbounded': a stage's load is posted as soon as "
        "the load path is free (every stage's memory latency overlaps: an upper bound). 'stages': CUTLASS multistage, "
        "the buffer ring of the kernel's ``stages``: the first stages - 1 loads are posted at once, then the load of "
        "stage j when stage j - (stages - 1) enters the tensor cores (with one stage: when stage j - 1 has left them), "
        "so a CTA has at most stages - 1 loads ahead and moves at most that many stages per memory latency (Little's "
        "law: few CTAs of a shallow ring cannot cover DRAM's latency).", "unbounded", choices=LOADS_IN_FLIGHT,
        source=CUTLASS_MULTISTAGE)
    shared_memory_fill: str = spec_field(
        "How a stage's operands get into shared memory. 'async' (cp.async / TMA, sm80 and later): the bytes are "
        "written as they arrive, so the fill runs from the stage's first bytes landing and ends no earlier than its "
        "last; only the warps' ldmatrix reads wait for the whole stage (cp.async.wait_group and a barrier). "
        "'registers' (sm70, no cp.async): the stage is loaded into registers and stored to shared memory once "
        "it has all arrived, then read.", "async", choices=SHARED_MEMORY_FILLS, source=ASYNC_COPY)
    kernels: tuple[KernelTile, ...] = spec_field(
        "GEMM kernels (tile shapes) the library can choose from; for every layer the dense and the sparse "
        "run each take the fastest one, as cuBLAS / cuSPARSELt heuristics do.",
        default_factory=_default_kernels, source=f"{CUTLASS}; smaller tiles for small batches: estimate")
    sparse_kernels: tuple[KernelTile, ...] = spec_field(
        "GEMM kernels the sparse (2:4) runs choose from, the fastest per layer (a sparse GEMM library has its "
        "own tile list: CUTLASS's SparseGemm instantiations, cuSPARSELt); empty: the sparse runs choose from "
        "``kernels`` like the dense ones. Tile k is in dense (uncompressed) K, as CUTLASS's ThreadblockShape.",
        default_factory=tuple, source=CUTLASS_SPARSE)
    int4_kernels: tuple[KernelTile, ...] = spec_field(
        "GEMM kernels the layers with 4-bit weight-only weights (``quantized_weight_bits: 4``, W4A16) choose from, "
        "the fastest per layer (a W4A16 library's own kernels); empty: they choose from ``kernels``.",
        default_factory=tuple, source=TINYGEMM)
    dram_read_rates: tuple[DramRatePoint, ...] = spec_field(
        "DRAM read rate against bytes in flight per SM (a read-stream microbenchmark at rising occupancy), read by "
        "the kernels whose ``dram_rate`` is 'in_flight': a round's rate is interpolated linearly at its bytes per "
        "SM (the wave's DRAM bytes of the round over ``sms``), through zero below the first point (Little's law), "
        "the last point's rate above the last; never above ``dram_bandwidth``. Empty: every round at "
        "``dram_bandwidth``.", default_factory=tuple, source=LITTLE)
    split_k_limit: int = spec_field(
        "Largest split-K factor a single GEMM may take: K is cut into that many equal slices, one CTA per C "
        "tile and slice, and the slices add their FP32 partial tiles in the kernel's epilogue (serial split-K: each "
        "slice reads the running partial from the L2 workspace and writes it back; the last writes C). Per kernel the "
        "factor is TensorRT-LLM's wave-quantization choice (``accel_sim/models/tensor_core/plan/split.py``) among the "
        "factors its is_valid_split_k_factor admits: K and every slice whole multiples of its k_tile of 64 (and of "
        "the mode's MMA), a slice's last stage shorter when it is not whole stages of the tile. 1: no split-K.", 1,
        positive=True, source=TRTLLM_SPLIT_K)
    batched_split_limit: int = spec_field(
        "Largest number of splits along K (the KV length of a decode-attention kernel) a batched / grouped GEMM may "
        "take, chosen by FlashAttention's split-KV rule (``plan/split.py``); the splits reduce in the epilogue as "
        "``split_k_limit``'s do. 1: no split.", 1, positive=True, source=FLASH_SPLITS)

    block_format: str = spec_field(
        "Operand format of every GEMM: 'none' runs the arch's word_bits; a block-scaled format (MX: mxfp8_e4m3, "
        "mxfp8_e5m2, mxfp6_e3m2, mxfp6_e2m3, mxfp4, mxint8; nvfp4) stores A and B as narrow elements plus one "
        "8-bit scale per block of K, multiplies on the narrow multipliers at that width's rate "
        "(fp8_ / fp6_ / fp4_macs_per_cycle) and applies the two scales of a block to its partial sum; C stays "
        "word_bits wide.", "none", choices=BLOCK_FORMAT_CHOICES, source=OCP_MX)
    block_size: int = spec_field(
        "Elements of K per scale; 0: the format's own (32 MX, 16 NVFP4). Must divide every layer's reduction.",
        0, minimum=0, source=OCP_MX)
    fp8_macs_per_cycle: int = spec_field(
        "Dense multiply-accumulates per cycle of one tensor core with 8-bit elements (FP8, MXFP8, MXINT8; a "
        "layer's precision: fp8 runs at it); 0: the core has no 8-bit path.", 0, minimum=0, source="the arch config's datasheet (dense FP8 / INT8 peak)")
    int8_macs_per_cycle: int = spec_field(
        "Dense multiply-accumulates per cycle of one tensor core with INT8 elements, what a layer's precision: int8 "
        "(W8A8: INT8 weights and activations) runs at; 0: the core has no INT8 path.", 0, minimum=0,
        source="the arch config's datasheet (dense INT8 peak)")
    fp6_macs_per_cycle: int = spec_field(
        "Dense multiply-accumulates per cycle of one tensor core with 6-bit elements (MXFP6); 0: none.", 0,
        minimum=0, source="the arch config's datasheet (dense FP6 peak)")
    fp4_macs_per_cycle: int = spec_field(
        "Dense multiply-accumulates per cycle of one tensor core with 4-bit elements (MXFP4, NVFP4); 0: none.", 0,
        minimum=0, source="the arch config's datasheet (dense FP4 peak)")

    def __post_init__(self) -> None:
        problems = []
        if not self.kernels:
            problems.append("kernels needs at least one tile shape")
        for n, m, what in ((self.nm_n, self.nm_m, "nm_n / nm_m"), (self.nm_n_32bit, self.nm_m_32bit,
                                                                     "nm_n_32bit / nm_m_32bit")):
            if n >= m:
                problems.append(f"{what}: N {n} must be smaller than M {m} (a sparse pattern)")
        points = [p.in_flight for p in self.dram_read_rates]
        if points != sorted(set(points)):
            problems.append("dram_read_rates: in_flight must rise from point to point")
        for tile in self.kernels + self.sparse_kernels + self.int4_kernels:
            if tile.warp_m % self.mma_m or tile.warp_n % self.mma_n:
                problems.append(f"kernel {tile}: warp tile must be a multiple of the MMA shape "
                                f"{self.mma_m}x{self.mma_n}")
        if problems:
            raise ValueError("; ".join(problems))


def narrow_mma_k(spec: TensorCoreSpec, arch_name: str, field: str, rate: int) -> int:
    """K of one MMA at a narrower operand's ``rate`` (dense MACs per cycle per tensor core, the config's
    ``field``): more K in the FP16 MMA's cycles; an InputError unless that K is whole."""
    if (spec.mma_k * rate) % spec.dense_macs_per_cycle:
        raise InputError.single(arch_name, f"tensor_core.{field}", f"{rate} must be a multiple of "
                                f"dense_macs_per_cycle / mma_k ({spec.dense_macs_per_cycle} / {spec.mma_k})")
    return spec.mma_k * rate // spec.dense_macs_per_cycle
