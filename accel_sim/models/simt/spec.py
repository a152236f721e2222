"""The ``simt:`` section of an arch config (family: simt).

An A100-like GPU running one sparse or dense GEMM kernel on its CUDA cores (or, for the
block-sparse, 2:4 and dense tensor-core kernels, on its tensor cores). Only what is SIMT-specific
lives here: warps, schedulers, occupancy limits, sectors, latencies and the kernels' own
parameters. The machine the family shares with the tensor-core family (SMs, tensor cores and
their rate, shared memory, register file, L2, DRAM, memory latency, MMA shape, GEMM tiles) is
read from the arch's ``tensor_core:`` section, which a simt config inherits with
``extends: ampere_a100`` (``arch_configs/ampere_a100_simt.yaml``): one set of A100 constants,
cited once.
"""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.config.schema import spec_field

WHITEPAPER = "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020)"
CUDA_GUIDE = "CUDA C++ Programming Guide, compute capability 8.0 (technical specifications, memory coalescing)"
JIA = ("Jia, Maggioni, Staiger, Scarpazza, 'Dissecting the NVIDIA Volta GPU Architecture via "
       "Microbenchmarking' (arXiv 1804.06826, 2018), V100 latencies (no A100 figure taken)")
CUTLASS_SIMT = ("CUTLASS 2.x SIMT SGEMM instantiations (test/unit/gemm/device/simt_sgemm_*_sm50.cu: 128x128x8 with "
                "32x64 warps down to 32x32x8; 2 stages)")
AMPERE_TUNING = ("Tuning CUDA Applications for NVIDIA Ampere GPU Architecture (docs.nvidia.com/cuda/ampere-tuning-guide), "
                 "1.4.2: A100's combined L1 data cache / shared memory is 192 KB per SM; the shared-memory carveout is 0, 8, 16, "
                 "32, 64, 100, 132 or 164 KB")
ACCEL_SIM_A100 = ("Accel-Sim's A100 configuration (github.com/accel-sim/gpgpu-sim_distribution, configs/tested-cfgs/SM80_A100/"
                  "gpgpusim.config: 40 memory channels x 4 L2 sub-partitions, each a 256 KB slice (128 sets x 128 B x 16 ways) "
                  "with a 32-byte data port; 160 x 256 KB = 40 MB and 160 x 32 B = 5120 B per clock, the whitepaper's L2 size "
                  "and read bandwidth)")
NSIGHT_ATOMICS = ("NVIDIA Nsight Visual Studio Edition 4.7 User Guide, Memory Statistics - Atomics (docs.nvidia.com/gameworks): "
                  "on compute capability 3.x and later 'many atomics can be performed ... nearly as quickly as memory loads'; "
                  "the read-modify-writes of a warp's threads to one location 'are all serialized'")
SGK_MBV1 = ("google-research/google-research sgk/mbv1/config.py: the sparse MobileNetV1s' block_config is ['dense'] + "
            "['sparse'] x 12; sgk/mbv1/mobilenet_builder.py runs a 'dense' block's 1x1 convolution as layers.Conv2D, "
            "a tf.matmul (cuBLAS SGEMM), and a 'sparse' one as layers.SparseConv2D (Sputnik's SpMM)")
SPUTNIK = "Gale, Zaharia, Young, Elsen, 'Sparse GPU Kernels for Deep Learning' (SC 2020)"
MERGE = "Yang, Buluc, Owens, 'Design Principles for Sparse Matrix Multiplication on the GPU' (Euro-Par 2018)"
MERRILL = "Merrill, Garland, 'Merge-Based Parallel Sparse Matrix-Vector Multiplication' (SC 2016)"
SPARSERT = ("Wang, 'SparseRT: Accelerating Unstructured Sparsity on GPUs for Deep Learning Inference' (PACT 2020); its "
            "code generator github.com/marsupialtail/gpu-sparsert (sparsednn/code_gen_ptx.py, code_fragments.py "
            "START_NONFUSED / BLOCK_END, autotune_float.sh)")

KERNELS = ("dense_simt", "dense_tensor_core", "csr_scalar", "csr_vector", "sputnik", "merge", "csb", "bsr",
           "nm_tensor_core", "sparsert", "dense_gemv", "sparsert_conv", "csb_spmm", "merge_spmv")
TENSOR_CORE_KERNELS = ("dense_tensor_core", "bsr", "nm_tensor_core")
TRANSPOSE_KERNELS = ("csr_scalar", "csr_vector", "csb")
SM_L1_KERNELS = ("sparsert", "sputnik", "merge", "dense_gemv", "sparsert_conv", "csb_spmm")     # the kernels whose schedules list their read-only B sectors


@dataclass(frozen=True)
class SgemmTile:
    """One SIMT SGEMM kernel's tile: a CTA tile of C, its warp tiles, its shared-memory stages."""

    m: int = spec_field("CTA tile rows of C.", positive=True, source=CUTLASS_SIMT)
    n: int = spec_field("CTA tile columns of C.", positive=True, source=CUTLASS_SIMT)
    k: int = spec_field("Reduction per main-loop step.", positive=True, source=CUTLASS_SIMT)
    warp_m: int = spec_field("Warp tile rows.", positive=True, source=CUTLASS_SIMT)
    warp_n: int = spec_field("Warp tile columns.", positive=True, source=CUTLASS_SIMT)
    stages: int = spec_field("Shared-memory stages.", 2, positive=True, source=CUTLASS_SIMT)

    def __post_init__(self) -> None:
        if self.m % self.warp_m or self.n % self.warp_n:
            raise ValueError(f"sgemm tile {self.m}x{self.n} is not a multiple of its warp tile "
                             f"{self.warp_m}x{self.warp_n}")


def _default_sgemm_tiles() -> tuple[SgemmTile, ...]:
    return (SgemmTile(128, 128, 8, 32, 64), SgemmTile(128, 64, 8, 64, 32), SgemmTile(64, 64, 8, 32, 32),
            SgemmTile(64, 32, 8, 32, 32), SgemmTile(32, 32, 8, 32, 32))


@dataclass(frozen=True)
class SimtSpec:
    """SIMT GPU: warps on SMs, sector-coalesced memory, sparse kernels as warp schedules."""

    kernel: str = spec_field(
        "Kernel the layers run: dense_simt (CUDA-core SGEMM), dense_tensor_core (HGEMM), csr_scalar (a row "
        "per thread), csr_vector (a row per warp), sputnik (1-D tiles, subwarps, row swizzle, vector loads), "
        "merge (merge-path nnz balancing), csb (compressed sparse blocks), bsr (block-sparse on tensor cores), "
        "nm_tensor_core (2:4 sparse tensor cores), sparsert (code generated per matrix: values and indices are "
        "immediates, one load per distinct dense-operand row of a CTA's rows), dense_gemv (dense GEMV on the CUDA "
        "cores, a warp per output row streaming it in 16-byte vector loads per lane: the batch-1 dense baseline), "
        "sparsert_conv (sparsert's code on a K x K convolution without im2col: loads from the shifted input), "
        "csb_spmm (CSB blocks, a warp per block and 32 columns, block rows cut into chunks of balanced work: "
        "simt.csb_balance), merge_spmv (Merrill and Garland's merge-based CSR SpMV: equal merge-path shares per thread).",
        "sputnik", choices=KERNELS,
        source=f"{SPUTNIK}; {MERGE}; Buluc et al. SPAA 2009 (CSB); OpenAI block-sparse (2017); {SPARSERT}; {MERRILL}")
    dense_layers_kernel: str = spec_field(
        "Kernel a layer with dense weights (weight_density 1, no N:M marking) runs instead of simt.kernel, as a sparse "
        "network's dense layers call the dense library; '' runs simt.kernel on every layer.", "",
        choices=("", "dense_simt", "dense_tensor_core"),
        source=f"model_choice: ''; volta_v100_sputnik sets dense_simt ({SGK_MBV1})")
    transpose: bool = spec_field(
        "Multiply by the transposed sparse operand (A^T x): csr_scalar / csr_vector scatter with atomics, "
        "csb walks block columns. Only those kernels.", False, source="Buluc et al., SPAA 2009")
    warm_l2: bool = spec_field(
        "The layer's activations B are in L2 when it starts and its outputs stay there (a previous layer wrote "
        "them, or a benchmark loop launched the kernel before), when everything fits the L2: DRAM then moves only "
        "the sparse operand. False: every operand comes from DRAM and C goes back (a cold, isolated kernel).", False,
        source="measurement condition: kernel benchmarks time repeated launches (warm L2); networks chain layers")
    warp_size: int = spec_field("Threads per warp.", 32, positive=True, source=CUDA_GUIDE)
    schedulers_per_sm: int = spec_field(
        "Warp schedulers per SM (one per processing block), each issuing one warp instruction per cycle.", 4,
        positive=True, source=f"{WHITEPAPER}: four processing blocks per SM, one warp scheduler each")
    fp32_lanes_per_sm: int = spec_field("FP32 FMA lanes per SM (CUDA cores).", 64, positive=True,
                                        source=f"{WHITEPAPER}: 64 FP32 cores per SM")
    max_threads_per_sm: int = spec_field("Resident threads per SM.", 2048, positive=True,
                                         source=f"{WHITEPAPER}: 2048 threads (64 warps) per SM")
    max_threads_per_cta: int = spec_field("Threads per CTA (thread block) at most.", 1024, positive=True,
                                          source=CUDA_GUIDE)
    max_ctas_per_sm: int = spec_field("Resident CTAs per SM at most.", 32, positive=True, source=CUDA_GUIDE)
    sector_bytes: int = spec_field("Memory transaction granularity: a warp's loads are coalesced into "
                                   "distinct sectors of this size.", 32, unit="size", positive=True,
                                   source=CUDA_GUIDE)
    line_bytes: int = spec_field("Cache line (four sectors): the L1's allocation unit (sm_l1_kernels); a multiple of the sector.",
                                 128, unit="size", positive=True, source=CUDA_GUIDE)
    sm_l1_kernels: tuple[str, ...] = spec_field(
        "Kernels whose read-only loads of B (sparsert's and dense_gemv's ld.global.nc, sputnik's and merge's __ldg) go through an L1 "
        "shared by the CTAs resident on the SM: a sector hits when an earlier CTA on the SM (or the CTA itself) fetched "
        "it and its line was not evicted (LRU over 128-byte lines of 32-byte sectors; a CTA's loads reach the L1 when "
        "it starts, in launch order). For the other kernels each CTA's L1 keeps only what that CTA fetched. Default "
        "sparsert and dense_gemv (its B vector) only: the L1 walk costs the fast path about 20 ns per cached sector (sputnik "
        "on ResNet-50 layer1_0_conv2: 15x faster than the reference instead of 160x), so sputnik and merge take it on "
        "request.", ("sparsert", "dense_gemv", "sparsert_conv"),
        source=f"{AMPERE_TUNING}; {CUDA_GUIDE} (L1 caches global loads in 128-byte lines of 32-byte sectors)")
    l1_shared_memory_bytes: int = spec_field(
        "Bytes of the SM's combined L1 data cache and shared memory array; the L1 gets what the shared-memory carveout "
        "leaves.", 192 * 1024, unit="size", positive=True, source=AMPERE_TUNING)
    shared_memory_carveouts: tuple[int, ...] = spec_field(
        "Shared-memory capacities (bytes) the SM can be configured with; a kernel gets the smallest holding its resident "
        "CTAs' shared memory (assumption: the driver picks the smallest that keeps the occupancy), the L1 the rest.",
        tuple(k * 1024 for k in (0, 8, 16, 32, 64, 100, 132, 164)), source=AMPERE_TUNING)
    l2_slices: int = spec_field(
        "L2 slices: each holds the sectors whose number modulo the slice count is its own (assumption: NVIDIA's address "
        "hash is not published; consecutive sectors in consecutive slices) and has one atomic unit executing the atomic "
        "adds sent to its sectors.", 160, positive=True, source=ACCEL_SIM_A100)
    l2_ways: int = spec_field(
        "Ways of each L2 set; 0: no set model. With ways, the L2 (tensor_core.l2_size) is a set-associative sector "
        "cache of line_bytes lines and sector_bytes sectors, l2_size / (line_bytes x l2_ways) sets (fewer ways when the "
        "L2 holds fewer lines), a line's set its line number modulo the sets (assumption: NVIDIA's set hash is not "
        "published), least recently used line evicted: when a kernel's footprint overflows the L2, the reads whose "
        "addresses its schedule lists (the read-only loads past the L1, the dense GEMMs' A and B tiles, the atomic "
        "adds) look it up in CTA launch order, each CTA's lines in address order, and DRAM reads the sectors it misses; "
        "the other reads count every sector from DRAM. With 0, past the L2 every sector requested from L2 comes from "
        "DRAM (an upper bound on the DRAM traffic).", 0, minimum=0,
        source="model_choice: 0 (the upper bound; no A100 L2 walk: a 40 MB L2 rarely overflows and the walk costs a "
               f"lookup per sector); volta_v100_simt sets Accel-Sim's SM7_QV100 24 ways ({ACCEL_SIM_A100} for the A100's 16)")
    l2_atomic_cycles: int = spec_field(
        "Cycles a slice's atomic unit spends on one atomic request (the distinct addresses one warp instruction updates in "
        "one sector, as a load's sector access) per operation on the request's most-updated address: operations on one "
        "address are serialised, distinct addresses of a sector go together. Requests to one slice queue in CTA start order "
        "(a CTA's requests join the queue when it starts); the kernel ends when every slice has executed its requests.", 1,
        unit="cycles", positive=True,
        source=f"{NSIGHT_ATOMICS}; assumption: one request per slice per cycle, a sector access like a load's ({ACCEL_SIM_A100})")
    l2_latency: int = spec_field("Cycles of a load that hits L2 (a gather of the dense operand).", 193,
                                 unit="cycles", minimum=0, source=f"{JIA}: L2 hit 193 cycles")
    shared_memory_latency: int = spec_field("Cycles of a shared-memory load.", 19, unit="cycles", minimum=0,
                                            source=f"{JIA}: shared memory 19 cycles")
    threads_per_cta: int = spec_field("Threads per CTA of the sparse CUDA-core kernels.", 128, positive=True,
                                      source=f"{SPUTNIK} (4-warp thread blocks)")
    registers_per_thread: int = spec_field(
        "Registers per thread of the sparse CUDA-core kernels (occupancy).", 32, positive=True,
        source="estimate: a CSR inner loop (pointers, index, value, accumulators) compiles to about 32")
    gemm_registers_per_thread: int = spec_field(
        "Registers per thread of the dense GEMM kernels (occupancy).", 128, positive=True,
        source="estimate: an 8x8 thread tile (64 accumulators) plus double-buffered fragments")
    loop_overhead_instructions: int = spec_field(
        "Integer / branch warp instructions per inner-loop iteration besides its loads and FMAs (address "
        "increment, compare, branch).", 3, minimum=0, source="estimate: SASS of a counted loop (IADD, ISETP, BRA)")
    sgemm_tiles: tuple[SgemmTile, ...] = spec_field(
        "dense_simt tiles the library can choose from; each layer takes the fastest (as cuBLAS heuristics do).",
        default_factory=_default_sgemm_tiles, source=CUTLASS_SIMT)
    split_k: tuple[int, ...] = spec_field(
        "Split-K factors the dense GEMMs (and 2:4) may use with each tile: K cut into this many slices, one CTA "
        "each, partial tiles added into C with atomics (cuBLAS / CUTLASS use split-K when M x N gives too few "
        "CTAs for the GPU).", (1, 2, 4, 8, 16),
        source="CUTLASS split-K (serial and parallel GEMM split-K); cuBLAS heuristics")
    tile_n: int = spec_field("sputnik: output columns of one subwarp's 1-D tile.", 64, positive=True,
                             source=f"{SPUTNIK} (1-D tiling; 64-wide tiles for large N)")
    vector_width: int = spec_field("sputnik: values per vector load of the dense operand (float4).", 4,
                                   positive=True, source=f"{SPUTNIK} (vector memory instructions)")
    row_swizzle: bool = spec_field("sputnik: launch rows longest first (row swizzle load balancing).", True,
                                   source=SPUTNIK)
    reverse_offset_alignment: bool = spec_field(
        "sputnik: load A's values and indices as vectors of vector_width from each row's start backed up to a vector "
        "boundary (reverse-offset memory alignment; the leading entries masked); false: scalar loads, subwarp "
        "non-zeros per batch.", False, source=f"{SPUTNIK} (reverse-offset memory alignment, ROMA)")
    merge_items_per_thread: int = spec_field(
        "merge: merge-path items (non-zeros plus row ends) per thread; a warp takes warp_size times this.", 8,
        positive=True, source=f"{MERGE} (equal merge-path shares per warp); 8 per thread: estimate")
    block: int = spec_field("bsr: block side (8 or 16 as in OpenAI's block-sparse kernels); must divide the "
                            "sparse operand.", 16, positive=True, source="OpenAI block-sparse GPU kernels (2017)")
    bsr_tile_n: int = spec_field("bsr: output columns of one CTA (16 per warp, the MMA's M).", 64, positive=True,
                                 source="estimate: 4 warps of m16n8k8 / m16n8k16 MMAs")
    csb_beta: int = spec_field("csb: block side; 0 gives Buluc et al.'s sqrt(n) power of two.", 0, minimum=0,
                               source="Buluc et al., SPAA 2009")
    csb_balance: bool = spec_field(
        "csb_spmm: cut a block row into chunks of consecutive blocks where the work before them reaches a multiple of "
        "the average block row's (a CTA per chunk, partial outputs added with atomics); false: a CTA per block row.",
        True, source="Buluc et al., SPAA 2009 (a block row's work above the average is split and run in parallel)")
    sparsert_rows: tuple[int, ...] = spec_field(
        "sparsert: output rows of A per CTA (Ny = A_dim / A_BLOCKS) the per-layer autotuning tries; each layer keeps "
        "its fastest (rows x columns) kernel.", (8, 16, 32),
        source=f"{SPARSERT}: autotune_float.sh tries A_BLOCKS = A_dim / 32, / 16, / 8")
    sparsert_tile_n: tuple[int, ...] = spec_field(
        "sparsert: columns of B per CTA, one thread each (Tsz = C_dim / C_BLOCKS, one group: Gy = 1); the "
        "autotuning tries each with each row count.", (64, 128, 256),
        source=f"{SPARSERT}: autotune_float.sh's column blocks give 49 to 392 columns per CTA and Gy = 1; "
               "estimate: the power-of-two warp multiples in that range")
    instruction_bytes: int = spec_field(
        "Bytes of one SASS instruction (sparsert's code, values and B offsets inside, is fetched per CTA).", 16,
        unit="size", positive=True, source=f"{JIA}: Volta encodes every instruction in 128 bits (assumption: Ampere keeps the encoding)")
    instruction_cache_bytes: int = spec_field(
        "Bytes of the SM's L1 instruction cache, where a kernel with per-CTA generated code (sparsert, sparsert_conv) "
        "keeps it: a CTA whose code an earlier CTA on the SM fetched (and LRU over whole code blocks has not evicted) "
        "fetches none of it through the L2 port; a code block larger than the cache streams through it on every CTA. "
        "The L0 caches in front of it and its bandwidth to them are not modelled. 0: no instruction cache, every CTA "
        "fetches its code through the L2 port.", 0, unit="size", minimum=0,
        source="model_choice: 0 (no A100 instruction-cache size taken); volta_v100_simt sets Jia et al.'s V100 figure")
    tensor_core_word_bits: int = spec_field(
        "Operand width of the tensor-core kernels (FP16, the rate of tensor_core.dense_macs_per_cycle).", 16,
        positive=True, source=f"{WHITEPAPER}: 312 FP16 TFLOPS")

    def __post_init__(self) -> None:
        problems = []
        if self.threads_per_cta % self.warp_size:
            problems.append(f"threads_per_cta {self.threads_per_cta} is not a multiple of warp_size {self.warp_size}")
        if self.line_bytes % self.sector_bytes:
            problems.append(f"line_bytes {self.line_bytes} is not a multiple of sector_bytes {self.sector_bytes}")
        if not self.split_k or min(self.split_k) < 1:
            problems.append("split_k needs factors >= 1")
        if not self.sparsert_rows or min(self.sparsert_rows) < 1 or not self.sparsert_tile_n \
                or min(self.sparsert_tile_n) < 1:
            problems.append("sparsert_rows and sparsert_tile_n need values >= 1")
        if not self.shared_memory_carveouts or min(self.shared_memory_carveouts) < 0 \
                or max(self.shared_memory_carveouts) > self.l1_shared_memory_bytes:
            problems.append("shared_memory_carveouts need values between 0 and l1_shared_memory_bytes")
        if set(self.sm_l1_kernels) - set(SM_L1_KERNELS):
            problems.append(f"sm_l1_kernels may name {', '.join(SM_L1_KERNELS)}")
        if self.line_bytes // self.sector_bytes > 16:
            problems.append("line_bytes / sector_bytes must be at most 16 sectors per line")
        if not self.sgemm_tiles:
            problems.append("sgemm_tiles needs at least one tile")
        if self.fp32_lanes_per_sm % self.schedulers_per_sm:
            problems.append("fp32_lanes_per_sm must be a multiple of schedulers_per_sm")
        if self.transpose and self.kernel not in TRANSPOSE_KERNELS:
            problems.append(f"transpose runs on {', '.join(TRANSPOSE_KERNELS)}, not {self.kernel}")
        if problems:
            raise ValueError("; ".join(problems))
