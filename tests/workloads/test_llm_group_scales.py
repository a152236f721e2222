"""import-hf / serve's group-wise scales (``--group-size`` / ``--scale-bits``) and ``--quantize-lm-head``: what they
write on each layer, what the footprint counts, and the one-line refusals."""
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


def test_groups_ride_on_the_quantized_block_weights_and_round_trip(tmp_path):
    compression = Compression.parse("dense", weight_bits=4, group_size=64)
    written = write_llm_workload(CONFIGS / "llama_2_7b.json", STEP, tmp_path, compression=compression)
    loaded = {layer.name: layer for layer in load_workload(written.path).layers}
    q, down, score, head = (loaded[n] for n in ("l00_attn_q", "l00_mlp_down", "l00_attn_score", "lm_head"))
    assert (q.quantized_weight_bits, q.quant_group_size, q.quant_scale_bits) == (4, 64, None)
    assert (down.k, down.quant_group_size) == (11008, 64)
    assert score.quant_group_size is None and head.quant_group_size is None        # KV cache and LM head untouched
    assert written.path.stem.endswith("w4g64")


def test_quantize_lm_head_quantizes_it_with_its_groups_and_never_prunes_it():
    config = read_hf_config(CONFIGS / "llama_2_7b.json")
    layers = {layer.name: layer for layer in transformer_network(
        config, STEP, Compression.parse("2:4", weight_bits=4, group_size=128, lm_head=True)).layers}
    head = layers["lm_head"]
    assert (head.quantized_weight_bits, head.quant_group_size, head.weight_sparsity) == (4, 128, None)
    assert str(layers["l00_attn_q"].weight_sparsity) == "2:4"


def test_the_footprint_counts_the_scales():
    config = read_hf_config(CONFIGS / "llama_2_7b.json")
    plain = step_footprint(config, STEP, 16, Compression.parse("dense", weight_bits=4))
    grouped = step_footprint(config, STEP, 16, Compression.parse("dense", weight_bits=4, group_size=32))
    block_weights = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008)          # Llama-2-7B: q, k, v, o and the gated MLP
    assert grouped.weights_bytes - plain.weights_bytes == pytest.approx(block_weights * 32 / 32 / 8)


@pytest.mark.parametrize("kwargs,option", [
    (dict(weight_bits=4, group_size=0), "--group-size"), (dict(weight_bits=4, group_size=-64), "--group-size"),
    (dict(group_size=64), "--group-size"), (dict(weight_bits=4, scale_bits=16), "--scale-bits"),
    (dict(weight_bits=4, group_size=64, scale_bits=0), "--scale-bits"), (dict(lm_head=True), "--quantize-lm-head")])
def test_bad_options_name_the_option(kwargs, option):
    with pytest.raises(InputError, match=option):
        Compression.parse("dense", **kwargs)


def test_a_group_not_dividing_a_layers_k_is_one_line(tmp_path, capsys):
    # Llama-2-7B's mlp_down reduces over 11008 = 2^8 x 43: a group of 512 does not divide it
    result = run_cli(capsys, "import-hf", CONFIGS / "llama_2_7b.json", "--phase", "decode", "--context", "8",
                     "--weight-bits", "4", "--group-size", "512", "--out", tmp_path / "o")
    assert_one_line_error(result, "--group-size", "512", "mlp_down", "11008")
    result = run_cli(capsys, "import-hf", CONFIGS / "llama_2_7b.json", "--phase", "decode", "--context", "8",
                     "--weight-bits", "4", "--group-size", "0", "--out", tmp_path / "o")
    assert_one_line_error(result, "--group-size", "0")
