"""SCALE-Sim v3 ``.cfg`` files, read as they are.

The keys map one to one onto an accel_sim systolic config (word = 1 byte, as in
SCALE-Sim). Keys SCALE-Sim reads but whose effect is not modelled here (custom
layouts, Ramulator traces) are accepted only at their no-op values; anything else is
an error naming the key, never a silent difference.

``[sparsity]`` (SCALE-Sim 3.0.0 ``scale_config.py``): ``SparsitySupport`` turns sparsity on
(``systolic.nm_sparsity``); then ``SparseRep`` (``csr``, ``csc`` or ``ellpack_block``: it only
changes SCALE-Sim's SPARSE_REPORT, so it is checked and otherwise ignored),
``OptimizedMapping`` (false: layer-wise N:M from the topology; true: row-wise,
``systolic.sparse_mapping: row_wise``), ``RandomNumberGeneratorSeed`` (``systolic.row_seed``)
and, only when OptimizedMapping is true, ``BlockSize`` (``systolic.row_block_size``; SCALE-Sim
does not read it otherwise, whatever its value). SCALE-Sim is lenient where this reader is not:
it takes any boolean other than ``true`` (any case) as false, matches key names in any case,
and runs block sizes that do not divide ``ArrayHeight`` as long as they divide ``2 x
ArrayHeight`` (a short last block otherwise crashes it); here a boolean must be true / false,
and a block size must be even and divide the array rows, or the config is refused.
"""
from __future__ import annotations

import configparser
from pathlib import Path

from accel_sim.foundations.errors import InputError, Problem

_KIB = 1024  # SCALE-Sim's *SzkB sizes are in units of 1024 bytes
SPARSE_REPRESENTATIONS = ("csr", "csc", "ellpack_block")  # SCALE-Sim 3.0.0 single_layer_sim.py


def read_scalesim_cfg(path: Path) -> dict:
    """Parse a SCALE-Sim config into the raw mapping of an accel_sim arch config."""
    file = str(path)
    if not path.is_file():
        raise InputError.single(file, "", "file not found")
    parser = configparser.ConfigParser(delimiters=(":", "="))
    parser.optionxform = str  # keep key case
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=file)
    except (configparser.Error, UnicodeDecodeError) as err:
        raise InputError.single(file, "", f"not a SCALE-Sim .cfg file: {err}") from None
    problems: list[Problem] = []

    def get(section: str, key: str, kind: type, default=None):
        if not parser.has_option(section, key):
            if default is None:
                problems.append(Problem(file, f"{section}.{key}", "required SCALE-Sim key is missing"))
            return default
        text = parser.get(section, key).strip()
        try:
            if kind is bool:
                if text.lower() not in ("true", "false"):
                    raise ValueError
                return text.lower() == "true"
            return kind(text)
        except ValueError:
            problems.append(Problem(file, f"{section}.{key}", f"expected {kind.__name__}, got {text!r}"))
            return default

    arch = "architecture_presets"
    rows = get(arch, "ArrayHeight", int)
    cols = get(arch, "ArrayWidth", int)
    sizes = {name: get(arch, f"{key}SramSzkB", int) for name, key in
             (("ifmap", "Ifmap"), ("filter", "Filter"), ("ofmap", "Ofmap"))}
    dataflow = get(arch, "Dataflow", str)
    bandwidth = get(arch, "Bandwidth", float, 10.0)
    banks = get(arch, "MemoryBanks", int, 1)
    read_req = get(arch, "ReadRequestBuffer", int, 32)
    write_req = get(arch, "WriteRequestBuffer", int, 32)
    mode = get("run_presets", "InterfaceBandwidth", str, "CALC")
    if mode is not None and mode.upper() not in ("CALC", "USER"):
        problems.append(Problem(file, "run_presets.InterfaceBandwidth", f"expected CALC or USER, got {mode!r}"))
    if get("run_presets", "UseRamulatorTrace", bool, False):
        problems.append(Problem(file, "run_presets.UseRamulatorTrace", "Ramulator traces are not supported; set False"))
    for key in ("IfmapCustomLayout", "FilterCustomLayout"):
        if get("layout", key, bool, False):
            problems.append(Problem(file, f"layout.{key}", "custom SRAM layouts are not modelled; set False"))
    sparse = get("sparsity", "SparsitySupport", bool, False)
    row_wise: dict = {}
    if sparse:
        representation = get("sparsity", "SparseRep", str)
        if representation is not None and representation not in SPARSE_REPRESENTATIONS:
            problems.append(Problem(file, "sparsity.SparseRep", f"expected one of {', '.join(SPARSE_REPRESENTATIONS)} "
                                    f"(as SCALE-Sim spells them), got {representation!r}"))
        seed = get("sparsity", "RandomNumberGeneratorSeed", int)
        if get("sparsity", "OptimizedMapping", bool):
            row_wise = {"sparse_mapping": "row_wise", "row_block_size": get("sparsity", "BlockSize", int),
                        "row_seed": seed}
    if problems:
        raise InputError(problems)
    name = parser.get("general", "run_name", fallback=path.stem).strip()

    def buffer(size_kib: int) -> dict:
        return {"size": size_kib * _KIB, "banks": banks}

    return {
        "name": name,
        "family": "systolic",
        "description": f"SCALE-Sim config {path.name}, read as is",
        "word_bits": 8,
        "dram": {"bandwidth_mode": mode.lower(), "bandwidth": bandwidth},
        "systolic": {
            "rows": rows, "cols": cols, "dataflow": dataflow.lower(),
            "ifmap_sram": buffer(sizes["ifmap"]), "filter_sram": buffer(sizes["filter"]),
            "ofmap_sram": buffer(sizes["ofmap"]), "nm_sparsity": sparse,
            "read_request_buffer": read_req, "write_request_buffer": write_req, **row_wise,
        },
    }
