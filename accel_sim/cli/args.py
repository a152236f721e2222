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


def add_output_options(parser: argparse.ArgumentParser, quiet: bool = True) -> None:
    """``--force`` (and ``--quiet`` unless told not), the same on every command that writes a folder."""
    parser.add_argument("--force", action="store_true",
                        help="write into an --out folder that holds another run's results (they are replaced)")
    if quiet:
        parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def progress_stream(args: argparse.Namespace) -> TextIO | None:
    """Where progress lines go: stderr, or nowhere with ``--quiet``."""
    return None if getattr(args, "quiet", False) else sys.stderr
