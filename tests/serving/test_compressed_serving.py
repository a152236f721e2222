"""docs/llm.md's tables of a dense, a 2:4, a W4A16 (without and with group-wise scales) and a W8A8 Llama-2-7B served on
one SLA on the A100, and a dense FP16 and an FP8 one on the H100 (the commands they show)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.cli_helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
COMMAND = ("serve", "--model", ROOT / "workloads" / "llm" / "configs" / "llama_2_7b.json", "--arch", "ampere_a100_serving",
           "--requests", "100", "--prompt-tokens", "512", "--output-tokens", "128", "--scheduler", "chunked",
           "--slo-ttft-ms", "200", "--slo-tpot-ms", "25", "--quiet")
A100 = ("--rate", "20")
H100 = ("--arch", "hopper_h100_serving", "--rate", "40")    # a later --arch wins
ROWS = {"dense FP16": A100, "2:4": (*A100, "--weights", "2:4"), "W4A16": (*A100, "--weight-bits", "4"),
        "W4A16 G128": (*A100, "--weight-bits", "4", "--group-size", "128"),
        "W8A8": (*A100, "--precision", "int8"), "2:4 + W8A8": (*A100, "--weights", "2:4", "--precision", "int8"),
        "H100 dense FP16": H100, "H100 FP8": (*H100, "--precision", "fp8")}


def _doc_rows() -> dict[str, list[str]]:
    text = (ROOT / "docs" / "llm.md").read_text()
    rows = re.findall(r"^\| ([^|]+?) \| ([\d.]+ \|.+) \|$", text, flags=re.M)
    return {name: [cell.strip() for cell in rest.split("|")] for name, rest in rows if name in ROWS}


@pytest.mark.parametrize("name", list(ROWS))
def test_docs_table_is_what_serve_prints(capsys, name):
    result = run_cli(capsys, *COMMAND, *ROWS[name])
    assert result.code == 0, result
    out = result.out
    throughput = re.search(r"throughput ([\d.]+) output tokens/s", out).group(1)
    tpot = re.search(r"TPOT\s+p50 ([\d.]+) ms, p90 ([\d.]+) ms", out).groups()
    met, goodput = re.search(r"([\d.]+) % of requests met it; goodput ([\d.]+) requests/s", out).groups()
    assert _doc_rows()[name] == [throughput, f"{tpot[0]} / {tpot[1]} ms", f"{met} %", f"{goodput} requests/s"]


def test_every_row_is_in_the_docs():
    assert set(_doc_rows()) == set(ROWS)


@pytest.mark.parametrize("options,expected", [
    (("--precision", "fp8"), ("ampere_a100_serving", "tensor_core.fp8_macs_per_cycle", "no fp8 path")),
    (("--precision", "int8", "--weight-bits", "4"), ("--precision", "leave --weight-bits out")),
])
def test_a_missing_8_bit_path_is_one_line(capsys, options, expected):
    from tests.cli.cli_helpers import assert_one_line_error
    assert_one_line_error(run_cli(capsys, *COMMAND, *A100, *options), *expected)


def test_a_bad_objective_is_one_line(capsys):
    from tests.cli.cli_helpers import assert_one_line_error
    assert_one_line_error(run_cli(capsys, "serve", "--model", COMMAND[2], "--slo-tpot-ms", "0"), "--slo-tpot-ms")
