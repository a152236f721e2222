"""import-hf / serve's ``--precision int8 | fp8`` (W8A8 / FP8 weights and activations): what it writes on each
layer, what the footprint counts, the label, and the one-line refusals."""
from __future__ import annotations

from pathlib import Path

import pytest

from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.llm.compression import Compression
from accel_sim.foundations.workload.llm.generator import InferenceStep, transformer_network
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.foundations.workload.llm.memory import step_footprint
from accel_sim.foundations.workload.llm.workload_file import write_llm_workload
from accel_sim.foundations.workload.loader import load_workload
from tests.cli.cli_helpers import assert_one_line_error, run_cli

CONFIGS = Path(__file__).resolve().parents[2] / "workloads" / "llm" / "configs"
STEP = InferenceStep("decode", 64, 1)


@pytest.mark.parametrize("precision,label", [("int8", "w8a8"), ("fp8", "fp8")])
def test_precision_rides_on_the_block_weights_and_round_trips(tmp_path, precision, label):
    written = write_llm_workload(CONFIGS / "llama_2_7b.json", STEP, tmp_path,
                                 compression=Compression.parse("dense", precision=precision))
    loaded = {layer.name: layer for layer in load_workload(written.path).layers}
    q, down, score, head = (loaded[n] for n in ("l00_attn_q", "l00_mlp_down", "l00_attn_score", "lm_head"))
    assert (q.precision, q.quantized_weight_bits, down.precision) == (precision, 8, precision)
    assert score.precision is None and head.precision is None          # KV-cache GEMMs and the LM head stay FP16
    assert written.path.stem.endswith(label)


def test_2_4_and_the_lm_head_combine():
    config = read_hf_config(CONFIGS / "llama_2_7b.json")
    compression = Compression.parse("2:4", lm_head=True, precision="int8")
    layers = {layer.name: layer for layer in transformer_network(config, STEP, compression).layers}
    assert (layers["lm_head"].precision, layers["lm_head"].weight_sparsity) == ("int8", None)
    assert str(layers["l00_attn_q"].weight_sparsity) == "2:4" and compression.label == "2:4+w8a8+head"


def test_the_footprint_counts_8_bit_weights():
    config = read_hf_config(CONFIGS / "llama_2_7b.json")
    dense = step_footprint(config, STEP, 16, Compression())
    w8a8 = step_footprint(config, STEP, 16, Compression.parse("dense", precision="int8"))
    block_weights = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)          # Llama-2-7B: q, k, v, o and the gated MLP
    assert dense.weights_bytes - w8a8.weights_bytes == block_weights      # 2 B -> 1 B a weight


@pytest.mark.parametrize("kwargs,option", [(dict(precision="int4"), "--precision"),
                                           (dict(precision="int8", weight_bits=8), "--precision")])
def test_bad_options_name_the_option(kwargs, option):
    with pytest.raises(InputError, match=option):
        Compression.parse("dense", **kwargs)


def test_import_hf_writes_it(tmp_path, capsys):
    result = run_cli(capsys, "import-hf", CONFIGS / "llama_2_7b.json", "--phase", "decode", "--context", "8",
                     "--precision", "fp8", "--out", tmp_path / "o")
    assert result.code == 0, result
    text = next((tmp_path / "o").glob("*.yaml")).read_text()
    assert "precision: fp8" in text and "quantized_weight_bits: 8" in text


def test_fp8_workload_on_an_a100_is_one_line(tmp_path, capsys):
    run_cli(capsys, "import-hf", CONFIGS / "llama_2_7b.json", "--phase", "decode", "--context", "8",
            "--precision", "fp8", "--out", tmp_path / "o")
    path = next((tmp_path / "o").glob("*.yaml"))
    assert_one_line_error(run_cli(capsys, "run", "--arch", "ampere_a100", "--workload", path),
                          "tensor_core.fp8_macs_per_cycle")


def test_an_unknown_precision_is_one_line(tmp_path, capsys):
    result = run_cli(capsys, "import-hf", CONFIGS / "llama_2_7b.json", "--phase", "decode", "--context", "8",
                     "--precision", "int4", "--out", tmp_path / "o")
    assert_one_line_error(result, "--precision", "int4", "int8 (W8A8) or fp8")
