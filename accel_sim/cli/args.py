"""Arguments several commands share."""
from __future__ import annotations

from collections.abc import Sequence

from accel_sim.foundations.config.yaml_io import parse_yaml
from accel_sim.foundations.errors import InputError


def parse_overrides(pairs: Sequence[str]) -> dict:
    """``--set dotted.path=value`` pairs as a mapping of overrides (values parsed as YAML)."""
    overrides = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError.single("--set", pair, "expected dotted.path=value, e.g. systolic.rows=64")
        overrides[key.strip()] = parse_yaml(value, f"--set {key.strip()}")
    return overrides
