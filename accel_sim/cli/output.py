"""The one output check every command makes before any work.

``accel-sim run / sweep / reproduce / trace / import-onnx`` write into a folder given by
``--out``. :func:`check_output_folder` runs before anything is loaded or simulated and
refuses, with one line naming the folder:

- a path that exists and is a file (or lies under a file);
- a folder this process cannot create or write into (tried with a real temporary file,
  so it also holds for root on a read-only file system);
- a folder that already holds the results of another run: its marker file
  (:data:`MARKER`, written next to the results) names a different run, or there is no
  marker but there are files. ``--force`` replaces them; the *same* run (same command,
  same inputs, e.g. a sweep resumed into its own folder) is always allowed.

The folder itself is created only when the command writes (:meth:`OutputFolder.create`),
so a run refused for bad input leaves nothing behind.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from accel_sim.foundations.errors import InputError

MARKER = ".accel-sim-run.json"  # {"run": <identity>}: which run wrote the folder's results
IGNORED_ENTRIES = (MARKER, "results.lock")  # present in a folder without being anyone's results


@dataclass(frozen=True)
class OutputFolder:
    """A checked output folder and the run that will write it."""

    path: Path
    identity: str

    def create(self) -> Path:
        """Make the folder and record which run writes it; call just before writing results."""
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / MARKER).write_text(json.dumps({"run": self.identity}) + "\n", encoding="utf-8")
        return self.path


def _owner(folder: Path) -> str | None:
    try:
        return str(json.loads((folder / MARKER).read_text(encoding="utf-8"))["run"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _nearest_existing(path: Path) -> Path:
    for candidate in [path, *path.parents]:
        if candidate.exists():
            return candidate
    return Path(".")


def check_writable_place(path: Path, option: str = "--out") -> None:
    """``path`` (a folder or a file to be written) can be created: nothing on the way is a
    file and the nearest existing folder accepts a new file."""
    existing = _nearest_existing(path.parent if not path.exists() else path)
    if existing != path and not existing.is_dir():
        raise InputError.single(option, str(path), f"{existing} is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=existing if existing.is_dir() else existing.parent):
            pass
    except OSError as err:
        raise InputError.single(option, str(path), f"cannot write there ({err.strerror or err})") from None


def check_output_folder(out: str | Path, identity: str, force: bool = False, option: str = "--out") -> OutputFolder:
    """Refuse ``out`` before any work if it cannot hold this run's results (see the module doc)."""
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise InputError.single(option, str(path), "exists and is a file; give a folder name")
    check_writable_place(path, option)
    if path.is_dir() and not force:
        entries = sorted(e.name for e in path.iterdir() if e.name not in IGNORED_ENTRIES)
        owner = _owner(path)
        if entries and owner != identity:
            shown = ", ".join(entries[:4]) + (", ..." if len(entries) > 4 else "")
            whose = f"the results of another run ({owner})" if owner else f"files of another run ({shown})"
            raise InputError.single(option, str(path), f"already holds {whose}; choose another folder, or add "
                                    "--force to replace them")
    return OutputFolder(path, identity)


def check_output_file(out: str | Path, suffix: str, option: str = "--out") -> Path:
    """A single output file (e.g. ``storage --out table.csv``): the right suffix, not a folder,
    its folder creatable and writable. An existing file is replaced (it was named explicitly)."""
    path = Path(out)
    if path.is_dir():
        raise InputError.single(option, str(path), "is a folder; give a file name")
    if path.suffix.lower() != suffix:
        raise InputError.single(option, str(path), f"expected a {suffix} file name")
    check_writable_place(path, option)
    if path.exists() and not os.access(path, os.W_OK):
        raise InputError.single(option, str(path), "exists and is not writable")
    return path
