"""``accel-sim reproduce STUDY --out DIR`` (or ``all``, or ``--list``): run registered studies (paper
figures) into folders; ``all`` runs them in parallel and writes a gallery README, one progress line
per study on stderr."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TextIO

from accel_sim.cli.args import add_output_options, progress_stream
from accel_sim.cli.output import check_output_folder
from accel_sim.foundations.errors import InputError
from accel_sim.pipeline.sweep.progress import format_clock


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("reproduce", help="run a registered study (paper figure) into a folder")
    parser.add_argument("study", nargs="?", help="study name, or 'all'")
    parser.add_argument("--out", default="reports", help="output folder (default: reports)")
    parser.add_argument("--list", action="store_true", help="list the registered studies")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="studies run at once by 'all', each in its own process (default: one per core); "
                             "the files are the same for any value")
    add_output_options(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    from accel_sim.studies.registry import all_studies, reproduce_all, write_study

    studies = all_studies()
    if args.list or args.study is None:
        for name, s in studies.items():
            print(f"{name:28s} {s.title}")
        return 0
    out = Path(args.out)
    if args.study != "all" and args.study not in studies:
        raise InputError.single("reproduce", args.study, f"no such study; known: {', '.join(studies)}")
    if args.jobs < 1:
        raise InputError.single("--jobs", str(args.jobs), "expected a number of studies run at once >= 1")
    folder = check_output_folder(out, f"reproduce {args.study}", args.force)
    folder.create()
    if args.study == "all":
        progress = StudyProgress(len(studies), progress_stream(args))
        args.on_interrupt = lambda: progress.saved_line(out)
        gallery = reproduce_all(out, on_study=progress.start, jobs=args.jobs, on_done=progress.done)
        progress.finish()
        print(f"wrote {len(gallery.comparisons)} studies and {out / 'README.md'}")
        for name, error in gallery.failures.items():
            print(f"accel-sim: study {name} failed: {error} (traceback in {out / name / 'error.txt'})",
                  file=sys.stderr)
        return 1 if gallery.failures else 0
    args.on_interrupt = lambda: f"the study did not finish; files in {out} may be partial; run the same command again"
    write_study(studies[args.study], out)
    print(f"wrote {out / 'results.csv'}, {out / 'figure.png'}, {out / 'README.md'}")
    return 0


class StudyProgress:
    """One line per study of ``reproduce all`` on stderr: which study starts, how far, elapsed time."""

    def __init__(self, total: int, stream: TextIO | None):
        self.total, self.stream = total, stream
        self.started: list[str] = []
        self.finished: list[str] = []
        self._start = time.monotonic()

    def start(self, name: str) -> None:
        self.started.append(name)
        self._write(f"reproduce all: study {len(self.started)}/{self.total} {name} "
                    f"(elapsed {format_clock(time.monotonic() - self._start)})")

    def done(self, name: str) -> None:
        self.finished.append(name)

    def finish(self) -> None:
        self._write(f"reproduce all: {len(self.started)} studies in {format_clock(time.monotonic() - self._start)}")

    def saved_line(self, out: Path) -> str:
        done = self.finished
        return (f"{len(done)} studies finished in {out}/<study>/ ({', '.join(done) or 'none'}); the gallery "
                f"README was not written; run `accel-sim reproduce NAME --out {out}/NAME` for the others, or "
                "the same command again with --force")

    def _write(self, line: str) -> None:
        if self.stream is not None:
            self.stream.write(line + "\n")
            self.stream.flush()
