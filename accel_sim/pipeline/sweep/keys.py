"""Identity of a design point: SHA-256 of what determines its result, and nothing else.

A point's result is a pure function of its resolved accelerator config, the workload's
layer shapes and the simulator's code. :func:`point_key` hashes exactly those three, so
a store can tell which points it already holds, whatever order, process or machine
computed them.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any

from accel_sim.pipeline.catalog import ArchSpec
from accel_sim.foundations.config.schema import spec_to_dict
from accel_sim.foundations.workload.layer import Network


def canonical_json(value: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, floats as their shortest exact repr."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=True)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def workload_hash(network: Network) -> str:
    """Hash of the layer specs (shapes, sparsity, densities), in order; names of files don't matter."""
    return sha256_hex(canonical_json([spec_to_dict(layer) for layer in network.layers]))


def point_key(arch: ArchSpec, workload_digest: str, code_version: str) -> str:
    """The store key of one point: resolved arch config (base units), workload hash, code version."""
    return sha256_hex(canonical_json({"arch": spec_to_dict(arch), "workload": workload_digest,
                                      "code_version": code_version}))
