"""A YAML text is parsed once per process: every caller still gets its own document."""
from accel_sim.foundations.config.loader import load_arch_raw
from accel_sim.pipeline.catalog import load_arch
from accel_sim.foundations.config.yaml_io import parse_yaml


def test_a_caller_editing_its_document_does_not_change_the_next_parse():
    first = parse_yaml("a: {b: [1, 2]}\n", "x.yaml")
    first["a"]["b"].append(3)
    first["c"] = 4
    assert parse_yaml("a: {b: [1, 2]}\n", "x.yaml") == {"a": {"b": [1, 2]}}


def test_an_arch_loaded_again_is_the_same_and_overrides_do_not_leak():
    _, raw = load_arch_raw("ampere_a100_simt")
    raw["simt"]["kernel"] = "merge"
    changed = load_arch("ampere_a100_simt", {"simt.kernel": "sputnik"})
    again = load_arch("ampere_a100_simt")
    assert changed.simt.kernel == "sputnik"
    assert again == load_arch("ampere_a100_simt") and again.simt.kernel != "merge"
