"""Figure of the ``eie-sram-width`` study: sparse-matrix SRAM reads and read energy vs SRAM width."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402


def reads_and_energy(total: pd.DataFrame) -> Figure:
    """``total``: indexed by ``width_bits``, columns ``spmat_reads`` and ``read_energy_pj``."""
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    ax.plot(total.index, total["spmat_reads"], "o-", color="C0")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("sparse-matrix SRAM width (bits)")
    ax.set_ylabel("SRAM reads, nine layers", color="C0")
    ax2 = ax.twinx()
    ax2.plot(total.index, total["read_energy_pj"] / 1e6, "s-", color="C3")
    ax2.set_ylabel("read energy, nine layers (uJ)", color="C3")
    fig.tight_layout()
    return fig
