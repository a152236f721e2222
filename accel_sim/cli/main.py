"""Command line: parse arguments, call the Python API, print, set the exit code.

Each sub-command is one module of this package, listed in :data:`COMMANDS`: its ``register(subparsers)``
adds one parser whose ``handler`` (``handle(args) -> int``) does the work. A module imports at its top
only what building its parser needs; the rest is imported inside the handler, so that starting one
command does not load the others.

Exit codes: 0 success, 2 bad input (one line per problem, no traceback), 1 internal error,
130 interrupted (Ctrl-C; the message says what was saved and how to go on: a handler may set
``args.on_interrupt`` to a function returning that text).
An input the run does not use (another family's config section, a workload field the family does not
honour) is one ``accel-sim: warning:`` line on stderr; ``--allow-ignored`` (with ``--set``) silences it.
Every command checks its ``--out`` before any work (:mod:`accel_sim.cli.output`).
"""
from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

from accel_sim.cli import (cluster, encode, import_hf, import_onnx, reproduce, run, serve, storage, sweep,
                           trace, train)
from accel_sim.foundations.errors import IgnoredInputWarning, InputError

COMMANDS = (run, encode, reproduce, sweep, storage, import_onnx, import_hf, trace, train, cluster, serve)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="accel-sim", description="Cycle-level simulator of sparse and "
                                     "low-precision deep-learning accelerators.")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.register(subparsers)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
    """An ignored input as one line on stderr (other warnings as Python prints them)."""
    if issubclass(category, IgnoredInputWarning):
        print(f"accel-sim: warning: {' '.join(str(message).split())}", file=sys.stderr)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore" if getattr(args, "allow_ignored", False) else "once", IgnoredInputWarning)
        warnings.showwarning = _show_warning
        return _handle(args)


def _handle(args: argparse.Namespace) -> int:
    try:
        return args.handler(args)
    except InputError as err:
        for problem in err.problems:
            print(f"accel-sim: error: {' '.join(str(problem).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        saved = getattr(args, "on_interrupt", None)
        print(f"accel-sim: interrupted; {saved() if saved else 'nothing was saved'}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
