"""Write a figure to a file and release it."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # reports are files; no display needed
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

DPI = 110


def save_figure(figure: Figure, path: Path) -> Path:
    figure.savefig(path, dpi=DPI)
    plt.close(figure)
    return path
