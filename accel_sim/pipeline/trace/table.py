"""The per-cycle table of a trace as aligned plain text."""
from __future__ import annotations

from pathlib import Path

from accel_sim.pipeline.trace.events import CycleTable, Trace


def format_table(table: CycleTable) -> str:
    widths = [max([len(c)] + [len(r[i]) for r in table.rows]) for i, c in enumerate(table.columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(table.columns, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table.rows]
    return "\n".join(lines) + "\n"


def write_table(trace: Trace, path: Path) -> Path:
    header = [f"# {trace.title}"] + [f"# {note}" for note in trace.notes]
    path.write_text("\n".join(header) + "\n" + format_table(trace.table), encoding="utf-8")
    return path
