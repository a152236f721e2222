"""docs/llm.md's table of a dense, a 2:4 and a W4A16 Llama-2-7B (without and with group-wise scales) served on one
SLA (the four commands it shows)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.cli_helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
COMMAND = ("serve", "--model", ROOT / "workloads" / "llm" / "configs" / "llama_2_7b.json", "--arch", "ampere_a100_serving",
           "--requests", "100", "--rate", "20", "--prompt-tokens", "512", "--output-tokens", "128", "--scheduler", "chunked",
           "--slo-ttft-ms", "200", "--slo-tpot-ms", "25", "--quiet")
ROWS = {"dense FP16": (), "2:4": ("--weights", "2:4"), "W4A16": ("--weight-bits", "4"),
        "W4A16 G128": ("--weight-bits", "4", "--group-size", "128")}


def _doc_rows() -> dict[str, list[str]]:
    text = (ROOT / "docs" / "llm.md").read_text()
    rows = re.findall(r"^\| (dense FP16|2:4|W4A16 G128|W4A16) \| (.+) \|$", text, flags=re.M)
    return {name: [cell.strip() for cell in rest.split("|")] for name, rest in rows}


@pytest.mark.parametrize("name", list(ROWS))
def test_docs_table_is_what_serve_prints(capsys, name):
    result = run_cli(capsys, *COMMAND, *ROWS[name])
    assert result.code == 0, result
    out = result.out
    throughput = re.search(r"throughput ([\d.]+) output tokens/s", out).group(1)
    tpot = re.search(r"TPOT\s+p50 ([\d.]+) ms, p90 ([\d.]+) ms", out).groups()
    met, goodput = re.search(r"([\d.]+) % of requests met it; goodput ([\d.]+) requests/s", out).groups()
    assert _doc_rows()[name] == [throughput, f"{tpot[0]} / {tpot[1]} ms", f"{met} %", f"{goodput} requests/s"]


def test_a_bad_objective_is_one_line(capsys):
    from tests.cli.cli_helpers import assert_one_line_error
    assert_one_line_error(run_cli(capsys, "serve", "--model", COMMAND[2], "--slo-tpot-ms", "0"), "--slo-tpot-ms")
