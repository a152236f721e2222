"""Write a run to a report folder: layers.csv, summary.csv, config.resolved.yaml, a figure."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import yaml

from accel_sim.results.run_result import RunResult


def spec_to_dict(spec) -> dict:
    """A frozen spec as plain data (base units), for config.resolved.yaml and hashing."""
    def plain(value):
        if dataclasses.is_dataclass(value):
            return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        if isinstance(value, (tuple, list)):
            return [plain(v) for v in value]
        if hasattr(value, "items"):
            return {k: plain(v) for k, v in value.items()}
        return value
    return plain(spec)


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_report(run: RunResult, out_dir: Path, figure: bool = True) -> dict[str, Path]:
    """Write the report files; returns them by role. Files are replaced atomically."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "layers": out_dir / "layers.csv",
        "summary": out_dir / "summary.csv",
        "config": out_dir / "config.resolved.yaml",
    }
    _atomic_write_text(paths["layers"], run.layers_frame().to_csv(index=False))
    _atomic_write_text(paths["summary"], run.summary_frame().to_csv(index=False))
    resolved = {"arch": spec_to_dict(run.arch), "workload": {
        "name": run.network.name, "source": run.network.source,
        "layers": [spec_to_dict(layer) for layer in run.network.layers]}}
    _atomic_write_text(paths["config"], yaml.safe_dump(resolved, sort_keys=False))
    if figure:
        from accel_sim.plot import layer_overview, save_figure
        fig = layer_overview(run.layers_frame(), f"{run.network.name} on {run.arch.name}")
        paths["figure"] = save_figure(fig, out_dir / "layers.png")
    return paths
