"""SCALE-Sim topology CSV files, read as they are.

Two formats, told apart by the header:
- conv: ``Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels,
  Num Filter, Strides[, Sparsity],`` (no padding; SCALE-Sim has none);
- GEMM: ``Layer Name, M, N, K[, Sparsity],`` where SCALE-Sim's M is the output rows,
  N the output columns (filters) and K the reduction length.
The optional sparsity column is N:M (e.g. ``2:4``). Rows end with a trailing comma.

SCALE-Sim sizes a conv output as ``ceil((H - R + stride) / stride)``
(``topology_utils.topo_calc_hyperparams``), which keeps a last, partial window when
``(H - R)`` is not a multiple of the stride (ResNet-18 conv1: 224 -> 110, not 109).
That is the same as zero padding of ``(-(H - R)) mod stride`` at the bottom / right,
which is how such layers are represented here (:func:`scalesim_edge_padding`).
"""
from __future__ import annotations

import csv
from pathlib import Path

from accel_sim.foundations.errors import InputError, Problem
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, Layer, Network
from accel_sim.foundations.workload.spec import parse_nm

CONV_COLUMNS = ("ifmap_height", "ifmap_width", "filter_height", "filter_width", "channels", "num_filter", "strides")
GEMM_COLUMNS = ("m", "n", "k")


def scalesim_edge_padding(size: int, kernel: int, stride: int) -> int:
    """Bottom / right padding that reproduces SCALE-Sim's ceil-rounded output size."""
    return (-(size - kernel)) % stride if size >= kernel and stride > 0 else 0  # stride <= 0: the layer refuses it


def _cells(row: list[str]) -> list[str]:
    cells = [c.strip() for c in row]
    while cells and cells[-1] == "":
        cells.pop()
    return cells


def read_scalesim_topology(path: Path) -> Network:
    file = str(path)
    if not path.is_file():
        raise InputError.single(file, "", "file not found")
    try:
        rows = [_cells(r) for r in csv.reader(path.read_text(encoding="utf-8").splitlines())]
    except (csv.Error, UnicodeDecodeError) as err:
        raise InputError.single(file, "", f"not a SCALE-Sim topology CSV: {err}") from None
    rows = [r for r in rows if r]
    if not rows:
        raise InputError.single(file, "", "empty topology file")
    header = [h.lower() for h in rows[0]]
    is_gemm = len(header) >= 4 and header[1:4] == ["m", "n", "k"]
    columns = GEMM_COLUMNS if is_gemm else CONV_COLUMNS
    if not is_gemm and (len(header) < 8 or "height" not in header[1]):
        raise InputError.single(file, "line 1", "header is neither SCALE-Sim conv (Layer name, IFMAP Height, ...) "
                                "nor GEMM (Layer Name, M, N, K)")
    problems: list[Problem] = []
    layers: list[Layer] = []
    for line_no, row in enumerate(rows[1:], start=2):
        where = f"line {line_no}"
        if len(row) not in (len(columns) + 1, len(columns) + 2):
            problems.append(Problem(file, where, f"expected {len(columns) + 1} values (name, "
                                    f"{', '.join(columns)}) and an optional N:M sparsity, got {len(row)}"))
            continue
        name, numbers = row[0], row[1:len(columns) + 1]
        values = {}
        for column, text in zip(columns, numbers):
            try:
                values[column] = int(text)
            except ValueError:
                problems.append(Problem(file, f"{where}, {column}", f"expected a whole number, got {text!r}"))
        if len(values) != len(columns):
            continue
        try:
            nm = parse_nm(row[-1]) if len(row) == len(columns) + 2 else None
            if is_gemm:
                layers.append(GemmLayer(name=name, m=values["m"], k=values["k"], n=values["n"], weight_sparsity=nm))
            else:
                layers.append(ConvLayer(
                    name=name, in_h=values["ifmap_height"], in_w=values["ifmap_width"],
                    kernel_h=values["filter_height"], kernel_w=values["filter_width"],
                    in_channels=values["channels"], out_channels=values["num_filter"],
                    stride_h=values["strides"], stride_w=values["strides"], weight_sparsity=nm,
                    pad_bottom=scalesim_edge_padding(values["ifmap_height"], values["filter_height"], values["strides"]),
                    pad_right=scalesim_edge_padding(values["ifmap_width"], values["filter_width"], values["strides"])))
        except ValueError as err:
            problems.append(Problem(file, f"{where} ({name})", str(err)))
    if problems:
        raise InputError(problems)
    try:
        return Network(name=path.stem, layers=tuple(layers), source=f"SCALE-Sim topology {path.name}")
    except ValueError as err:
        raise InputError.single(file, "", str(err)) from None
