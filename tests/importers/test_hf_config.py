"""``accel-sim import-hf``: a Hugging Face config.json becomes a workload ready for ``run``; bad
configs and options end with one line naming the file (or option) and the key, exit 2."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.foundations.workload.loader import load_workload
from tests.cli.cli_helpers import assert_one_line_error, run_cli

CONFIGS = Path(__file__).resolve().parents[2] / "workloads" / "llm" / "configs"
LLAMA = {"model_type": "llama", "hidden_size": 256, "num_attention_heads": 8, "num_key_value_heads": 2,
         "intermediate_size": 512, "num_hidden_layers": 2, "vocab_size": 1000, "hidden_act": "silu",
         "max_position_embeddings": 4096}


def write(tmp_path: Path, **changes) -> Path:
    data = {**LLAMA, **changes}
    data = {k: v for k, v in data.items() if v is not ...}  # ... removes a key
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    return path


def test_import_then_run(tmp_path, capsys):
    out = tmp_path / "gpt2"
    result = run_cli(capsys, "import-hf", CONFIGS / "gpt2.json", "--phase", "decode", "--context", "64",
                     "--batch", "2", "--out", out)
    assert result.code == 0, result.err
    (workload,) = out.glob("*.yaml")
    assert workload.name == "gpt2_decode_ctx64_b2.yaml"
    network = load_workload(workload)
    assert f"{network.macs:,} MACs" in result.out and f"{len(network.layers)} layers" in result.out
    ran = run_cli(capsys, "run", "--arch", "tpu_like_128x128_ws", "--workload", workload, "--quiet")
    assert ran.code == 0, ran.err
    assert "l11_attn_score" in ran.out and "lm_head" in ran.out
    again = run_cli(capsys, "import-hf", CONFIGS / "gpt2.json", "--phase", "prefill", "--context", "64",
                    "--out", out)
    assert_one_line_error(again, "--out", "already holds")


def test_config_values_are_read_per_model_type():
    gpt2 = read_hf_config(CONFIGS / "gpt2.json")
    assert (gpt2.hidden, gpt2.heads, gpt2.kv_heads, gpt2.intermediate, gpt2.activation) == (768, 12, 12, 3072,
                                                                                             "gelu_new")
    mistral = read_hf_config(CONFIGS / "mistral_7b.json")
    assert (mistral.group_size, mistral.head_dim, mistral.sliding_window, mistral.gated_mlp) == (4, 128, 4096, True)


@pytest.mark.parametrize(("changes", "key", "message"), [
    ({"num_attention_heads": 6}, "num_attention_heads", "do not divide the hidden size"),
    ({"num_key_value_heads": 3}, "num_key_value_heads", "do not divide"),
    ({"hidden_act": "swiglu2"}, "hidden_act", "unknown activation 'swiglu2'"),
    ({"intermediate_size": ...}, "intermediate_size", "missing"),
    ({"num_hidden_layers": "32"}, "num_hidden_layers", "positive integer"),
    ({"hidden_size": 0}, "hidden_size", "positive integer"),
    ({"model_type": "t5"}, "model_type", "not supported"),
    ({"model_type": ...}, "model_type", "missing"),
])
def test_bad_config_is_one_line_naming_the_file_and_key(tmp_path, capsys, changes, key, message):
    path = write(tmp_path, **changes)
    result = run_cli(capsys, "import-hf", path, "--phase", "decode", "--context", "128", "--out", tmp_path / "o")
    line = assert_one_line_error(result, str(path), key, message)
    assert not (tmp_path / "o").exists(), line


@pytest.mark.parametrize(("args", "option", "message"), [
    (("--phase", "decode", "--context", "0"), "--context", "must be >= 1"),
    (("--phase", "prefill", "--context", "-5"), "--context", "must be >= 1"),
    (("--phase", "decode", "--context", "8", "--batch", "0"), "--batch", "must be >= 1"),
    (("--phase", "decode", "--context", "5000"), "--context", "exceeds the 4096 positions"),
])
def test_bad_step_is_one_line_naming_the_option(tmp_path, capsys, args, option, message):
    result = run_cli(capsys, "import-hf", write(tmp_path), *args, "--out", tmp_path / "o")
    assert_one_line_error(result, option, message)


@pytest.mark.parametrize(("content", "message"), [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object"),
])
def test_unreadable_config(tmp_path, capsys, content, message):
    path = tmp_path / "config.json"
    path.write_text(content)
    result = run_cli(capsys, "import-hf", path, "--phase", "decode", "--context", "8", "--out", tmp_path / "o")
    assert_one_line_error(result, str(path), message)


def test_missing_file(tmp_path, capsys):
    result = run_cli(capsys, "import-hf", tmp_path / "nope.json", "--phase", "decode", "--context", "8",
                     "--out", tmp_path / "o")
    assert_one_line_error(result, "nope.json", "file not found")
