"""Speed bar of issue 3: encode all of VGG-16's pruned weights into EIE's interleaved CSC.

Bar: under 20 s of wall time for the 16 layers (138.3 M dense weights, pruned to the
per-layer densities of ``workloads/vgg16.yaml``, Han et al. 2015) encoded with
``EIEInterleavedCSC.from_dense`` at 64 PEs and 4-bit relative indices (the EIE chip,
Han et al. ISCA 2016). Run:

    python benchmarks/bench_eie_encoding.py [--repeat N]

Weights come from ``layer_operands`` (seeded generation and pruning, timed separately and
not part of the bar). Each layer is encoded as EIE sees it: rows = outputs (filters),
columns = inputs (``C/g x R x S`` for a conv). Pointer widths are sized to fit
(``pointer_bits=None``): EIE's 16-bit pointers overflow on VGG-16 fc6. The wall time is
the best of N passes; the encoded entries (padding included) are printed as a checksum.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from accel_sim.foundations.compress.formats.eie import EIE_INDEX_BITS, EIE_PES, EIEInterleavedCSC  # noqa: E402
from accel_sim.foundations.workload.loader import load_workload  # noqa: E402
from accel_sim.foundations.workload.operands import layer_operands, weight_matrix  # noqa: E402

WALL_BAR_S = 20.0


def main() -> int:
    parser = argparse.ArgumentParser(description="VGG-16 pruned weights -> EIE interleaved CSC")
    parser.add_argument("--repeat", type=int, default=1, help="passes; the best wall time is reported")
    args = parser.parse_args()
    network = load_workload("vgg16")
    start = time.perf_counter()
    matrices = [weight_matrix(layer, layer_operands(layer).weights).T for layer in network.layers]
    generate_s = time.perf_counter() - start
    dense = sum(m.size for m in matrices)
    nnz = sum(int((m != 0).sum()) for m in matrices)
    best, entries, padding = float("inf"), 0, 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        encoded = [EIEInterleavedCSC.from_dense(m, n_pes=EIE_PES, index_bits=EIE_INDEX_BITS, pointer_bits=None)
                   for m in matrices]
        best = min(best, time.perf_counter() - start)
        entries = sum(sum(pe.n_entries for pe in e.pes) for e in encoded)
        padding = sum(e.n_padding for e in encoded)
    print(f"VGG-16: {dense / 1e6:.1f} M dense weights, {nnz / 1e6:.2f} M non-zeros, "
          f"{entries / 1e6:.2f} M EIE entries ({padding / 1e6:.3f} M padding)")
    print(f"generate + prune weights: {generate_s:.1f} s (not part of the bar)")
    print(f"encode into EIE CSC ({EIE_PES} PEs, {EIE_INDEX_BITS}-bit indices): {best:.2f} s "
          f"(bar {WALL_BAR_S:.0f} s) -> {'PASS' if best < WALL_BAR_S else 'FAIL'}")
    return 0 if best < WALL_BAR_S else 1


if __name__ == "__main__":
    sys.exit(main())
