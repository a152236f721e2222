"""Generated EIE cases shared by the EIE tests: small layers and arch overrides, seeded."""
from __future__ import annotations

import numpy as np

from accel_sim.pipeline.catalog import load_arch
from accel_sim.foundations.workload.layer import GemmLayer, OperandSource

N_CASES = 220
MAX_SIDE = 256


def generated_case(seed: int):
    """(arch, layer) number ``seed``: sizes up to 256 x 256, densities 1-100 %, FIFO depths 1-16,
    1-16 PEs, 2-4 bit relative indices (more padding), either empty-slice rule and pattern."""
    rng = np.random.default_rng(seed)
    big = seed % 10 == 0  # one case in ten at full size
    k = int(rng.integers(64, MAX_SIDE + 1)) if big else int(rng.integers(1, 97))
    n = int(rng.integers(64, MAX_SIDE + 1)) if big else int(rng.integers(1, 97))
    index_bits = int(rng.choice([2, 3, 4]))
    entries_per_read = int(rng.choice([1, 2, 4, 8]))
    overrides = {
        "eie.n_pes": int(rng.integers(1, 17)),
        "eie.fifo_depth": int(rng.integers(1, 17)),
        "eie.index_bits": index_bits,
        "eie.spmat_sram_width": entries_per_read * (4 + index_bits),
        "eie.empty_column_costs_cycle": bool(rng.integers(0, 2)),
        "eie.lnzd_cycles_per_level": int(rng.integers(0, 3)),
    }
    layer = GemmLayer(
        f"case{seed}", m=1 if big else int(rng.integers(1, 3)), k=k, n=n,
        weight_density=float(rng.choice([0.01, 0.04, 0.1, 0.3, 0.6, 1.0, rng.uniform(0.01, 1.0)])),
        input_density=float(rng.choice([0.01, 0.2, 0.5, 1.0, rng.uniform(0.01, 1.0)])),
        operands=OperandSource(weight_pattern=str(rng.choice(["unstructured", "block"])) if k % 4 == 0 and n % 4 == 0
                               else "unstructured",
                               activation_pattern=str(rng.choice(["uniform", "clustered"])), seed=seed))
    return load_arch("eie", overrides), layer
