"""SIMT GPU family: sparse and dense GEMM kernels as schedules of warp work on an A100-like GPU."""
