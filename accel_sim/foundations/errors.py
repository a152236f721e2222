"""Errors raised at the input boundary.

Every problem with a user's file is an :class:`InputError` that names the file, the
dotted field path and what was expected. Validation collects all problems of one file
before raising, so a user fixes a config in one pass.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one field of one input file."""

    file: str
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}" if self.path else self.file
        return f"{where}: {self.message}"


class InputError(ValueError):
    """Bad user input (config, workload, sweep file). The CLI exits with code 2."""

    def __init__(self, problems: list[Problem]):
        if not problems:
            raise ValueError("InputError needs at least one problem")
        self.problems = list(problems)
        super().__init__("; ".join(str(p) for p in self.problems))

    @classmethod
    def single(cls, file: str, path: str, message: str) -> InputError:
        return cls([Problem(str(file), path, message)])


class IgnoredInputWarning(UserWarning):
    """An input the run does not use: a config section of another family, or a workload field the
    chosen family does not honour. The run goes on; the CLI prints it as one ``accel-sim: warning:``
    line (``--allow-ignored`` silences it; in Python, ``warnings.simplefilter("ignore", IgnoredInputWarning)``)."""


class SimulationError(RuntimeError):
    """A model broke an internal invariant (e.g. ran past its max_cycles guard)."""
