"""Bad input for the fields and options of issue 19's vector unit and compressed LLM runs: one
line naming the file / option and the field, exit 2."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.cli_helpers import assert_one_line_error, run_cli

CONFIG = Path(__file__).resolve().parents[2] / "workloads" / "llm" / "configs" / "gpt2.json"


def workload(tmp_path: Path, entry: str) -> Path:
    path = tmp_path / "w.yaml"
    path.write_text(f"name: w\nlayers:\n  - {entry}\n")
    return path


@pytest.mark.parametrize("entry, expected", [
    ("{name: s, type: vector, op: softmx, m: 4, n: 8}", ("layers[0].op", "softmax")),
    ("{name: s, type: vector, op: softmax, m: 0, n: 8}", ("layers[0]", "rows must be > 0")),
    ("{name: s, type: vector, m: 4, n: 8}", ("layers[0]", "needs op")),
    ("{name: s, type: vector, op: rotary, m: 4, n: 7}", ("layers[0]", "width must be even")),
    ("{name: s, type: vector, op: relu, m: 4, k: 3, n: 8}", ("layers[0]", "does not take k")),
    ("{name: g, type: gemm, m: 4, k: 8, n: 8, op: relu}", ("layers[0]", "does not take op")),
    ("{name: g, type: gemm, m: 4, k: 8, n: 8, quantized_weight_bits: 0}", ("layers[0].quantized_weight_bits",)),
])
def test_bad_workload_entries(tmp_path, capsys, entry, expected):
    result = run_cli(capsys, "run", "--arch", "ampere_a100", "--workload", workload(tmp_path, entry),
                     "--out", tmp_path / "out")
    assert_one_line_error(result, str(tmp_path / "w.yaml"), *expected)


def test_quantized_weights_on_a_family_that_stores_one_word_width(tmp_path, capsys):
    path = workload(tmp_path, "{name: g, type: gemm, m: 4, k: 8, n: 8, quantized_weight_bits: 4}")
    result = run_cli(capsys, "run", "--arch", "tpu_like_128x128_ws", "--workload", path, "--out", tmp_path / "out")
    assert_one_line_error(result, "quantized_weight_bits", "systolic", "8-bit word")


@pytest.mark.parametrize("section, expected", [
    ("vector_unit: {lanes: 0}", "vector_unit.lanes"),
    ("vector_unit: {overlap: sometimes}", "vector_unit.overlap"),
    ("vector_unit: {widht: 3}", "vector_unit.widht"),
])
def test_bad_vector_unit_section(tmp_path, capsys, section, expected):
    arch = tmp_path / "a.yaml"
    arch.write_text(f"extends: ampere_a100\nname: a\n{section}\n")
    result = run_cli(capsys, "run", "--arch", arch, "--workload", "tiny_conv", "--out", tmp_path / "out")
    assert_one_line_error(result, expected)


@pytest.mark.parametrize("options, expected", [
    (("--weights", "3:4"), "--weights"),
    (("--weights", "unstructured:1.5"), "--weights"),
    (("--weight-bits", "0"), "--weight-bits"),
    (("--kv-bits", "64"), "--kv-bits"),
])
def test_bad_import_hf_compression_options(tmp_path, capsys, options, expected):
    result = run_cli(capsys, "import-hf", CONFIG, "--phase", "decode", "--context", "16", *options,
                     "--out", tmp_path / "out")
    assert_one_line_error(result, expected)
    assert not (tmp_path / "out").exists()
