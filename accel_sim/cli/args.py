"""Arguments several commands share: ``--set`` overrides, ``--force`` / ``--quiet``, and the progress
stream ``--quiet`` turns off."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from accel_sim.foundations.config.yaml_io import parse_yaml
from accel_sim.foundations.errors import InputError


def add_overrides_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--set PATH=VALUE`` (repeatable), read by :func:`parse_overrides`, and ``--allow-ignored`` (read by
:func:`accel_sim.cli.main.main`)."""
    parser.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", help=help_text)
    parser.add_argument("--allow-ignored", action="store_true",
                        help="no warning for inputs the run does not use (another family's config section, a "
                             "workload field such as precision that the family does not honour)")


def parse_overrides(pairs: Sequence[str]) -> dict:
    """``--set dotted.path=value`` pairs as a mapping of overrides (values parsed as YAML)."""
    overrides = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise InputError.single("--set", pair, "expected dotted.path=value, e.g. systolic.rows=64")
        overrides[key.strip()] = parse_yaml(value, f"--set {key.strip()}")
    return overrides


def add_compression_options(parser: argparse.ArgumentParser) -> None:
    """How an LLM's weights, activations and KV cache are stored, the same on ``import-hf`` and ``serve``."""
    parser.add_argument("--weights", default="dense",
                        help="block weights: dense (default), 2:4 (N:M-pruned, weight_sparsity 2:4) or "
                        "unstructured:D (magnitude-pruned to density D)")
    parser.add_argument("--weight-bits", type=int, default=None,
                        help="weight-only quantization of the block weights: stored bits (e.g. 8, 4; default: the "
                        "arch's word)")
    parser.add_argument("--group-size", type=int, default=None,
                        help="with --weight-bits: group-wise scales, one scale and zero point per this many weights "
                        "along k (e.g. 32, 64, 128; default: none counted)")
    parser.add_argument("--scale-bits", type=int, default=None,
                        help="with --group-size: bits of one group's scale and zero point (default 32: bf16 each)")
    parser.add_argument("--precision", default=None, metavar="{int8,fp8}",
                        help="8-bit weights AND activations of the block GEMMs: int8 (W8A8, SmoothQuant) or fp8 "
                        "(E4M3), one fp32 scale per output channel and per token; needs the arch's "
                        "int8_macs_per_cycle / fp8_macs_per_cycle (an A100 has no FP8); default: none (exclusive "
                        "with --weight-bits)")
    parser.add_argument("--quantize-lm-head", action="store_true",
                        help="with --weight-bits or --precision: quantize the LM head too (as gpt-fast and torchao "
                        "quantize every linear layer); default: it stays at the word width, as GPTQ / AWQ leave it")
    parser.add_argument("--kv-bits", type=int, default=None,
                        help="stored bits of the K / V cache (e.g. 8; default: the arch's word)")


def add_output_options(parser: argparse.ArgumentParser, quiet: bool = True) -> None:
    """``--force`` (and ``--quiet`` unless told not), the same on every command that writes a folder."""
    parser.add_argument("--force", action="store_true",
                        help="write into an --out folder that holds another run's results (they are replaced)")
    if quiet:
        parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def progress_stream(args: argparse.Namespace) -> TextIO | None:
    """Where progress lines go: stderr, or nowhere with ``--quiet``."""
    return None if getattr(args, "quiet", False) else sys.stderr
