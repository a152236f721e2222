"""No fitted constant (issue 33): every constant the timing model of a runnable measured-hardware case reads is
listed in ``measured_hardware/constants/*.yaml`` with its value, kind and source, and the listed value is the one
the shipped config resolves to. Estimates (no source) are allowed only where named below: the issue's bar is
missed for them and docs/silicon_validation.md says so."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from accel_sim import load_arch
from accel_sim.foundations.config.loader import ARCH_DIR
from accel_sim.foundations.config.schema import spec_to_dict
from accel_sim.foundations.measured import MEASURED_DIR, load_registry

CONSTANTS_DIR = MEASURED_DIR / "constants"
KINDS = {"datasheet", "isa", "programming_guide", "microbenchmark", "kernel_source", "derived", "model_choice",
         "estimate"}
# what the timing model of each family reads besides ``clock`` and ``word_bits``
SECTIONS = {"tensor_core": ("tensor_core", "vector_unit"), "eyeriss": ("eyeriss",), "simt": ("tensor_core", "simt")}
WHOLE = {"tensor_core.kernels", "tensor_core.sparse_kernels", "tensor_core.int4_kernels", "simt.sgemm_tiles",
         "tensor_core.dram_read_rates"}      # a kernel list (or a measured rate table) is one constant
# constants with no source yet (docs/silicon_validation.md, "Constants without a source")
KNOWN_ESTIMATES = {"tensor_core.l2_to_sm_bandwidth", "tensor_core.kernels", "vector_unit.fifo_depth",
                   "vector_unit.reduction_level_cycles",
                   # V100 (simt): the A100 default register-file rate, and the simt section's instruction-level estimates
                   "tensor_core.register_file_bandwidth", "simt.l2_atomic_cycles", "simt.registers_per_thread",
                   "simt.gemm_registers_per_thread", "simt.loop_overhead_instructions", "simt.merge_items_per_thread",
                   "simt.bsr_tile_n"}


def _table() -> dict[str, dict]:
    table: dict[str, dict] = {}
    for path in sorted(CONSTANTS_DIR.glob("*.yaml")):
        for config, entries in yaml.safe_load(path.read_text())["configs"].items():
            assert config not in table, f"{config} listed in two constants files"
            table[config] = entries
    return table


TABLE = _table()


def _chain(device: str) -> list[str]:
    """The config and the ones it extends, nearest first."""
    chain = []
    while device:
        chain.append(device)
        device = (yaml.safe_load((ARCH_DIR / f"{device}.yaml").read_text()) or {}).get("extends")
    return chain


def read_constants(device: str) -> dict[str, object]:
    """Every constant the device's timing model reads, by dotted path, at its resolved value."""
    arch = load_arch(device)
    resolved = spec_to_dict(arch)
    constants: dict[str, object] = {"clock": resolved["clock"], "word_bits": resolved["word_bits"]}
    assert arch.family in SECTIONS, f"{device}: family {arch.family} has no list of the sections its model reads"
    for section in SECTIONS[arch.family]:
        for key, value in (resolved.get(section) or {}).items():
            constants[f"{section}.{key}"] = value
    if device in SERVING_DEVICES:   # a tensor-parallel serving run also reads the link's rate and all-reduce latency
        constants.update({key: resolved[key] for key in SERVING_LINK})
    return constants


SERVING_LINK = ("device_link_bandwidth", "all_reduce_latency")
SERVING_DEVICES = {case.device for group in load_registry() for case in group.cases if case.serving is not None}


def _devices() -> list[str]:
    shipped = {p.stem for p in ARCH_DIR.glob("*.yaml")}
    devices = set()
    for group in load_registry():
        for case in group.cases:
            for run in (case.run, case.baseline):
                if run is not None and run.device in shipped:
                    devices.add(run.device)
    return sorted(devices)


DEVICES = _devices()


def test_the_runnable_groups_use_listed_devices():
    assert DEVICES == ["ampere_a100", "ampere_a100_80gb", "ampere_a100_80gb_serving", "ampere_a100_cusparselt_per_call",
                       "ampere_a100_cutlass_sparse", "ampere_a100_dense", "eyeriss_v1", "hopper_h100_serving",
                       "volta_v100_sgemm", "volta_v100_sparsert", "volta_v100_sparsert_conv", "volta_v100_sputnik"]


@pytest.mark.parametrize("device", DEVICES)
def test_every_constant_the_model_reads_is_listed_with_its_value_and_source(device):
    chain = _chain(device)
    assert any(c in TABLE for c in chain), f"{device}: no constants file covers it"
    estimates = set()
    for name, value in read_constants(device).items():
        entry = next((TABLE[c][name] for c in chain if name in TABLE.get(c, {})), None)
        assert entry is not None, f"{device}: {name} = {value!r} is read by the model but has no citation"
        assert entry.get("kind") in KINDS, f"{device}: {name}: kind {entry.get('kind')!r}"
        source = entry.get("source")
        text = " ".join(source) if isinstance(source, list) else str(source or "")
        assert len(text) > 20, f"{device}: {name}: no source"
        if name not in WHOLE:
            assert entry.get("value") == value, f"{device}: {name} resolves to {value!r}, the table says {entry.get('value')!r}"
        if entry["kind"] == "estimate":
            estimates.add(name)
        if entry["kind"] == "microbenchmark":
            # a file line, a table, a figure or a numbered section of a report (Jia et al.'s chapters measure each level)
            assert any(mark in text for mark in (".txt line", ".md line", "Table", "Fig", "Section ")), \
                f"{device}: {name}: no locator"
    assert estimates <= KNOWN_ESTIMATES, f"{device}: new uncited constants {sorted(estimates - KNOWN_ESTIMATES)}"


def test_no_constant_comes_from_a_measured_case():
    """A constant's source is never one of the registry's case sources (no constant read off a case)."""
    case_sources = {c.source for g in load_registry() for c in g.cases}
    for entries in TABLE.values():
        for name, entry in entries.items():
            source = entry["source"]
            texts = source if isinstance(source, list) else [source]
            assert not set(texts) & case_sources, name


def test_the_constants_files_are_not_group_files():
    assert CONSTANTS_DIR.is_dir() and not list(Path(MEASURED_DIR).glob("constants*.yaml"))
