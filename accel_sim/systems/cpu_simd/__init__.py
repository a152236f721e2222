"""CPU SIMD datapath model: binary (xor + popcount) vs fp32 GEMM throughput (BMXNet)."""
