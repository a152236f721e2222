"""The machine a SIMT kernel runs on: the ``simt:`` section plus the A100 constants the family
shares with the tensor-core family (read from the arch's ``tensor_core:`` section, never copied)."""
from __future__ import annotations

from dataclasses import dataclass

from accel_sim.foundations.arch import ArchBase
from accel_sim.foundations.errors import InputError
from accel_sim.models.simt.spec import SimtSpec

REGISTER_BYTES = 4  # a register is 32 bits (CUDA C++ Programming Guide)


@dataclass(frozen=True)
class Machine:
    sms: int
    schedulers: int                 # warp schedulers per SM
    warp_size: int
    fp32_lanes: int                 # FP32 FMA lanes per SM
    fma_issue_cycles: int           # scheduler cycles one FP32 warp instruction occupies
    tensor_macs_per_cycle: int      # tensor-core MACs per cycle of one scheduler's tensor core
    tensor_cores: int               # per SM
    registers: int                  # 32-bit registers per SM
    shared_memory: int              # bytes per SM
    max_threads: int                # resident threads per SM
    max_threads_per_cta: int
    max_ctas: int                   # resident CTAs per SM
    sector: int                     # bytes
    line: int                       # bytes (the L1's allocation unit)
    sm_l1: bool                     # the kernel's resident CTAs share the SM's L1 (else each keeps its own sectors)
    l1_shared_memory: int           # bytes of the combined L1 / shared-memory array per SM
    instruction_cache: int          # sectors of the SM's L1 instruction cache (0: none)
    carveouts: tuple[int, ...]      # shared-memory capacities the SM can be configured with, bytes
    l1_bandwidth: float             # bytes / cycle per SM (L1 and shared memory are one array)
    l2_port_bandwidth: float        # bytes / cycle of one SM's port to L2
    l2_bandwidth: float             # bytes / cycle, all SMs
    dram_bandwidth: float           # bytes / cycle
    l2_size: int                    # bytes
    l2_sets: int                    # L2 sets (l2_size / (line x l2_ways), at least one; 0 without a set model)
    l2_ways: int                    # lines per L2 set (fewer when the L2 holds fewer lines than l2_ways; 0: no set
    #                                 model, past the L2 every sector requested from L2 comes from DRAM)
    l2_slices: int                  # L2 slices, one atomic unit each (sector number modulo slices)
    l2_atomic_cycles: int           # atomic-unit cycles per request and per operation on its most-updated address
    dram_latency: int               # cycles
    l2_latency: int
    shared_memory_latency: int
    mma_m: int
    mma_n: int
    mma_k: int
    metadata_bits: int              # 2:4 metadata bits per kept value
    nm: tuple[int, int]             # the 2:4 pattern (N kept of M)


def machine(arch: ArchBase) -> Machine:
    spec: SimtSpec = arch.section("simt")
    if arch.tensor_core is None:
        raise InputError.single(arch.name, "tensor_core", "a simt arch needs the A100 machine of a tensor_core "
                                "section (write 'extends: ampere_a100')")
    tc = arch.tensor_core
    lanes_per_scheduler = spec.fp32_lanes_per_sm // spec.schedulers_per_sm
    l2_lines = max(1, tc.l2_size // spec.line_bytes)
    l2_ways = min(spec.l2_ways, l2_lines)                 # 0: no set model
    return Machine(
        sms=tc.sms, schedulers=spec.schedulers_per_sm, warp_size=spec.warp_size, fp32_lanes=spec.fp32_lanes_per_sm,
        fma_issue_cycles=-(-spec.warp_size // lanes_per_scheduler),
        tensor_macs_per_cycle=tc.dense_macs_per_cycle, tensor_cores=tc.tensor_cores_per_sm,
        registers=tc.register_file_size // REGISTER_BYTES, shared_memory=tc.shared_memory_size,
        max_threads=spec.max_threads_per_sm, max_threads_per_cta=spec.max_threads_per_cta,
        max_ctas=spec.max_ctas_per_sm, sector=spec.sector_bytes,
        line=spec.line_bytes, sm_l1=spec.kernel in spec.sm_l1_kernels, l1_shared_memory=spec.l1_shared_memory_bytes,
        instruction_cache=spec.instruction_cache_bytes // spec.sector_bytes,
        carveouts=tuple(sorted(spec.shared_memory_carveouts)), l1_bandwidth=tc.shared_memory_bandwidth,
        l2_port_bandwidth=tc.l2_to_sm_bandwidth, l2_bandwidth=tc.l2_bandwidth, dram_bandwidth=tc.dram_bandwidth,
        l2_size=tc.l2_size, l2_sets=l2_lines // l2_ways if l2_ways else 0, l2_ways=l2_ways, l2_slices=spec.l2_slices, l2_atomic_cycles=spec.l2_atomic_cycles,
        dram_latency=tc.memory_latency, l2_latency=spec.l2_latency,
        shared_memory_latency=spec.shared_memory_latency, mma_m=tc.mma_m, mma_n=tc.mma_n, mma_k=tc.mma_k,
        metadata_bits=tc.metadata_bits_per_value, nm=(tc.nm_n, tc.nm_m))
