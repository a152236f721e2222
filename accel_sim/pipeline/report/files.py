"""Write a run to a report folder: layers.csv, summary.csv, config.resolved.yaml, a figure (and
vector_ops.csv, the per-operator breakdown of the vector unit, when the workload has vector layers).

Nothing here imports pandas or matplotlib: the CSVs are written from the run's rows with the
text pandas' ``to_csv(index=False)`` gives for them (same columns, dtypes and number formats;
a test holds the two equal), and the figure is SVG text (:mod:`accel_sim.pipeline.plot.layers_svg`).
A command-line run so costs its simulation, not two heavy imports and a raster figure.
"""
from __future__ import annotations

import csv
import io
import os
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from accel_sim.foundations.config.yaml_io import dump_yaml
from accel_sim.foundations.config.schema import spec_to_dict
from accel_sim.foundations.measured import trust_columns, trust_text
from accel_sim.pipeline.run_result import RunResult, row_columns





def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _is_int(value: object) -> bool:
    return isinstance(value, (Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_bool(value: object) -> bool:
    return isinstance(value, (bool, np.bool_))


def _column_text(values: list[object]) -> list[str]:
    """A column's cells as pandas writes them: the dtype pandas infers for the values (``None`` =
    missing), then numpy's text of that dtype; a missing cell is empty."""
    present = [v for v in values if v is not None]
    complete = len(present) == len(values)
    if present and complete and all(_is_int(v) for v in present):
        return [str(int(v)) for v in values]
    if present and complete and all(_is_bool(v) for v in present):
        return [str(bool(v)) for v in values]
    if present and all(isinstance(v, (Real, np.number)) and not _is_bool(v) for v in present):
        cells = np.array([np.nan if v is None else v for v in values], dtype=np.float64).astype(str)
        return ["" if v is None else cell for v, cell in zip(values, cells)]
    return ["" if v is None else str(v) for v in values]


def csv_text(rows: list[dict[str, object]]) -> str:
    """``pandas.DataFrame(rows).to_csv(index=False)``, without pandas."""
    columns = row_columns(rows)
    cells = [_column_text([row.get(column) for row in rows]) for column in columns]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(zip(*cells) if cells else [[] for _ in rows])
    return out.getvalue()


def kernel_text(row: dict[str, object]) -> str:
    """The GEMM kernel a tensor-core layer ran: its CTA tile and, when it split K, the split (``-`` for a layer
    that reports no tile)."""
    if row.get("tile_m") is None:
        return "-"
    tile = "x".join(str(int(row[f"tile_{d}"])) for d in "mnk")
    split = int(row.get("split_k") or 1)
    return f"{tile} split-K {split}" if split > 1 else tile


def layer_table(run: RunResult) -> str:
    """The per-layer table ``accel-sim run`` prints (right-aligned columns) and its total line; a family that
    reports its kernels (the tensor core) gets a ``kernel`` column: the tile and split-K each layer ran."""
    rows = run.layer_rows()
    kernels = any(row.get("tile_m") is not None for row in rows)
    header = ("layer", "cycles", "stall_cycles", "util", "energy_uJ", "dram_read_bytes", "dram_write_bytes") \
        + (("kernel",) if kernels else ())
    lines = [[str(row["layer"]), str(row["cycles"]), str(row["stall_cycles"]), f"{100 * row['utilization']:.1f}%",
              f"{row['energy_pj'] / 1e6:.2f}", str(row["dram_read_bytes"]), str(row["dram_write_bytes"])]
             + ([kernel_text(row)] if kernels else []) for row in rows]
    widths = [max(len(text) for text in column) for column in zip(header, *lines)]
    text = [" ".join(cell.rjust(w) for cell, w in zip(line, widths)) for line in [header, *lines]]
    total = run.summary_row()
    text.append(f"total: {int(total['cycles']):,} cycles, {total['time_s'] * 1e3:.3f} ms, "
                f"{total['energy_pj'] / 1e6:.2f} uJ, util {100 * total['utilization']:.1f}%, "
                f"DRAM {int(total['dram_read_bytes'] + total['dram_write_bytes']):,} B")
    return "\n".join(text)


def run_readme(run: RunResult) -> str:
    """The run folder's README: what ran, the files, and how far to trust it (its family and device against
    the measured-hardware groups, :func:`accel_sim.foundations.measured.trust_text`)."""
    return "\n".join([
        f"# {run.network.name} on {run.arch.name}", "",
        f"Family {run.arch.family}, {len(run.layers)} layers. Files: `layers.csv` (one row per layer), `summary.csv` "
        "(the network; its last columns `validated_against`, `validation_cases`, `validation_geomean_abs_error`, "
        "`validation_worst_abs_error` say how far to trust it), `config.resolved.yaml`.", "",
        trust_text(run.arch.family, run.arch.name), ""])


def write_report(run: RunResult, out_dir: Path, figure: bool = True) -> dict[str, Path]:
    """Write the report files; returns them by role. Files are replaced atomically."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "layers": out_dir / "layers.csv",
        "summary": out_dir / "summary.csv",
        "config": out_dir / "config.resolved.yaml",
    }
    rows = run.layer_rows()
    _atomic_write_text(paths["layers"], csv_text(rows))
    # the trust columns come after every result column (a small lookup in measured_hardware/validation.csv)
    _atomic_write_text(paths["summary"], csv_text([{**run.summary_row(),
                                                    **trust_columns(run.arch.family, run.arch.name)}]))
    paths["readme"] = out_dir / "README.md"
    _atomic_write_text(paths["readme"], run_readme(run))
    from accel_sim.pipeline.report.vector_breakdown import vector_breakdown
    vector_rows = vector_breakdown(run)
    if vector_rows:  # the workload has non-matrix operators: their per-op breakdown
        paths["vector_ops"] = out_dir / "vector_ops.csv"
        _atomic_write_text(paths["vector_ops"], csv_text(vector_rows))
    resolved = {"arch": spec_to_dict(run.arch), "workload": {
        "name": run.network.name, "source": run.network.source,
        "layers": [spec_to_dict(layer) for layer in run.network.layers]}}
    _atomic_write_text(paths["config"], dump_yaml(resolved))
    if figure:
        from accel_sim.pipeline.plot.layers_svg import layer_overview_svg
        paths["figure"] = out_dir / "layers.svg"
        _atomic_write_text(paths["figure"], layer_overview_svg(rows, f"{run.network.name} on {run.arch.name}"))
    return paths


def write_accelergy(run: RunResult, out_dir: Path) -> dict[str, Path]:
    """Accelergy files of the run: ``action_counts.yaml`` (every action, counts over all layers) and
    ``ERT.yaml`` (the energy per action it was costed with, node scaling included), so an Accelergy
    setup can cost the same counts and reading the ERT back as ``energy_table`` gives the same energy."""
    from accel_sim.foundations.energy.accelergy import action_counts_yaml, ert_yaml
    from accel_sim.foundations.energy.table import load_energy_table
    from accel_sim.foundations.results.instances import merged_actions
    from accel_sim.pipeline.simulate import energy_factor

    table = load_energy_table(run.arch.energy_table)
    factor = energy_factor(run.arch, table)
    actions = merged_actions(run.layers)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"action_counts": out_dir / "action_counts.yaml", "ert": out_dir / "ERT.yaml"}
    _atomic_write_text(paths["action_counts"], action_counts_yaml(run.arch.name, actions))
    _atomic_write_text(paths["ert"], ert_yaml(run.arch.name, actions,
                                              lambda a: table.per_action_pj(a) if factor == 1.0
                                              else table.per_action_pj(a) * factor))
    return paths
