"""Compare two `accel-sim reproduce` output folders file by file: a speed-up of a study must not change
what it writes (issue 22).

    python benchmarks/reports_identity.py BEFORE_DIR AFTER_DIR [--studies NAME ...]

Every file of each study folder of BEFORE (``results.csv``, ``comparison.csv``, extra tables,
``README.md``, ``figure.png``) must exist in AFTER with the same bytes; in text files the output
folder's own path (which each README names in its "Regenerate" line) is replaced by ``OUT`` on both
sides first. Prints one line per study and exits 1 if any file differs or is missing.

To produce the two folders, run the studies with the code before and after the change, e.g.
``git worktree add /tmp/before <commit>`` then ``python -m accel_sim reproduce all --out DIR`` from each.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

TEXT_SUFFIXES = {".csv", ".md", ".txt"}


def _content(path: Path, root: Path) -> bytes:
    data = path.read_bytes()
    if path.suffix in TEXT_SUFFIXES:
        data = data.replace(str(root).encode(), b"OUT")
    return data


def differing_files(before: Path, after: Path, study: str) -> list[str]:
    """Files of ``before/study`` missing from ``after/study`` or with other content (and extra files)."""
    old, new = before / study, after / study
    names = {p.name for p in old.iterdir()} | ({p.name for p in new.iterdir()} if new.is_dir() else set())
    names = {name for name in names if not name.startswith(".")}   # the CLI's run marker (.accel-sim-run.json)
    return sorted(name for name in names
                  if not (old / name).is_file() or not (new / name).is_file()
                  or _content(old / name, before) != _content(new / name, after))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--studies", nargs="*", help="only these study folders (default: every one in BEFORE)")
    args = parser.parse_args()
    studies = args.studies or sorted(p.name for p in args.before.iterdir() if p.is_dir())
    bad = 0
    for study in studies:
        differ = differing_files(args.before, args.after, study)
        bad += bool(differ)
        print(f"{study:28s} " + ("identical" if not differ else "DIFFERS: " + ", ".join(differ)))
    print(f"{len(studies) - bad} of {len(studies)} studies identical")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
