"""Shared pieces of the SIMT GPU studies: the arch, one layer on one kernel, a heavy-tailed operand."""
from __future__ import annotations

import math
import tempfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from accel_sim.foundations.results.layer_result import LayerResult
from accel_sim.foundations.workload import GemmLayer
from accel_sim.foundations.workload.layer import Layer, OperandSource
from accel_sim.foundations.workload.operands import keep_payload
from accel_sim.pipeline.catalog import ArchSpec, load_arch
from accel_sim.pipeline.simulate import simulate_layer

ARCH = "ampere_a100_simt"


def kernel_arch(kernel: str, arch_name: str = ARCH, **simt) -> ArchSpec:
    """The shipped SIMT arch running ``kernel`` (other ``simt`` fields overridden as given)."""
    return _kernel_arch(kernel, arch_name, tuple(simt.items()))


@lru_cache(maxsize=256)
def _kernel_arch(kernel: str, arch_name: str, simt: tuple) -> ArchSpec:
    """Loaded once per process: the studies ask for the same kernel's arch for every layer (a spec is immutable)."""
    return load_arch(arch_name, {"simt.kernel": kernel, **{f"simt.{k}": v for k, v in simt}})


@lru_cache(maxsize=1024)
def run(arch: ArchSpec, layer: Layer) -> LayerResult:
    """One layer on its kernel. Remembered: the study asks for some pairs twice (the dense GEMM under warm
    L2 at each sparsity, merge at 90 % in the balance rows)."""
    return simulate_layer(arch, layer).result


def count(result: LayerResult, metric: str) -> int:
    """One of the run's counted metrics (cycles, CTAs, atomics), as the integer it counts."""
    return int(result.metrics[metric])


def longest_warp_cycles(arch: ArchSpec, layer: Layer) -> int:
    """The longest chain of issue and exposed latency of one warp of the layer's kernel (its fastest candidate): no
    launch order or CTA placement ends the kernel sooner."""
    return count(run(arch, layer), "longest_warp_cycles")


def geomean(values) -> float:
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def heavy_tailed_layer(folder: Path, rows: int = 4096, columns: int = 4096, batch: int = 64, seed: int = 0,
                       shape: float = 1.1, scale: int = 16) -> GemmLayer:
    """A GEMM layer whose sparse operand has Pareto-distributed row lengths (power-law graphs, as
    Yang et al.'s and Sputnik's imbalance studies use), written to ``folder`` as a payload: row r
    keeps ``min(columns, ceil(scale x (1 + Pareto(shape))))`` non-zeros at random columns."""
    rng = np.random.default_rng(seed)
    lengths = np.minimum(columns, np.ceil(scale * (rng.pareto(shape, rows) + 1)).astype(np.int64))
    return _rows_layer(folder, "heavy_tailed", lengths, columns, batch, rng, seed)


def heavy_columns_layer(folder: Path, rows: int = 4096, columns: int = 4096, batch: int = 1, seed: int = 0,
                        shape: float = 1.1, scale: int = 16) -> GemmLayer:
    """The power-law matrix of :func:`heavy_tailed_layer` transposed: Pareto-distributed *column* lengths (a
    graph's in-degree rather than its out-degree), so the rows are short and even but some columns hold a
    non-zero in most rows."""
    rng = np.random.default_rng(seed)
    lengths = np.minimum(rows, np.ceil(scale * (rng.pareto(shape, columns) + 1)).astype(np.int64))
    return _rows_layer(folder, "heavy_columns", lengths, rows, batch, rng, seed, transpose=True)


def lognormal_layer(folder: Path, rows: int = 4096, columns: int = 4096, batch: int = 64, seed: int = 0,
                    median: int = 32, sigma: float = 1.0) -> GemmLayer:
    """A GEMM layer whose sparse operand has log-normal row lengths, ``min(columns, ceil(LogNormal(ln median,
    sigma)))`` non-zeros per row at random columns: skewed, but without rows as long as the matrix.
    Assumption (no published distribution taken): the median of the power-law matrix (about 32) and sigma 1
    (coefficient of variation about 1.3; the longest of 4096 rows about 830)."""
    rng = np.random.default_rng(seed)
    lengths = np.minimum(columns, np.ceil(rng.lognormal(math.log(median), sigma, rows)).astype(np.int64))
    return _rows_layer(folder, "lognormal_rows", lengths, columns, batch, rng, seed)


def _rows_layer(folder: Path, name: str, lengths: np.ndarray, columns: int, batch: int, rng: np.random.Generator,
                seed: int, transpose: bool = False) -> GemmLayer:
    """The layer whose sparse operand's row r keeps ``lengths[r]`` non-zeros at random columns (a payload);
    ``transpose``: the operand is that matrix transposed (``lengths`` become its column lengths)."""
    rows = lengths.size
    path = Path(folder) / (f"{name}_{columns}x{rows}_seed{seed}.npz" if transpose else
                           f"{name}_{rows}x{columns}_seed{seed}.npz")
    key = (str(path), seed, columns, transpose, lengths.tobytes())
    if key not in _WRITTEN or not path.exists():          # the same matrix again (another batch): written already
        weights = np.zeros((columns, rows), dtype=np.float32)             # (k, n): A transposed
        for row, length in enumerate(lengths):
            weights[rng.choice(columns, int(length), replace=False), row] = 1.0 + rng.random(int(length), dtype=np.float32)
        if transpose:
            weights = np.ascontiguousarray(weights.T)
        np.savez(path, weights=weights)
        keep_payload(path, {"weights": weights})   # the layers of this process take it without reading it back
        _WRITTEN.add(key)
    if transpose:
        rows, columns = columns, rows
    return GemmLayer(name, m=batch, k=columns, n=rows, operands=OperandSource(payload=str(path)))


_WRITTEN: set[tuple] = set()   # payloads this process wrote: (path, seed, columns, transpose, row lengths)


def temporary_folder() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="accel_sim_simt_")
