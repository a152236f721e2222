"""Run ``accel-sim`` in this process as a user would, and check its bad-input contract."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from accel_sim.cli.main import main


@dataclass(frozen=True)
class CliResult:
    code: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return self.err.strip().splitlines()


def run_cli(capsys: pytest.CaptureFixture, *args: str) -> CliResult:
    capsys.readouterr()
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return CliResult(code, captured.out, captured.err)


def assert_one_line_error(result: CliResult, *expected: str) -> str:
    """Exit 2, exactly one ``accel-sim: error:`` line on stderr holding every ``expected`` text."""
    assert result.code == 2, result
    assert "Traceback" not in result.err
    lines = result.err_lines
    assert len(lines) == 1 and lines[0].startswith("accel-sim: error: "), result.err
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]
