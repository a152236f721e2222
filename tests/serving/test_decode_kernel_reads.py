"""The serving step's decode-attention kernel (``kv_reads``): a GQA-aware kernel reads a KV head's cache once for its
query heads; TensorRT-LLM's masked multi-head attention (one thread block per query head) once per query head, the
repeats from the L2. A measured case names the kernel its engine ran; ``accel-sim serve --kv-reads`` picks it."""
from __future__ import annotations

import pytest
import yaml

from accel_sim import load_arch
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.measured import load_group
from accel_sim.foundations.workload.llm.hf_config import read_hf_config
from accel_sim.systems.serving.parallel import TensorParallel
from accel_sim.systems.serving.step import Iteration, StepModel
from tests.cli.cli_helpers import assert_one_line_error, run_cli

ARCH = "ampere_a100_80gb_serving"
LLAMA_7B, LLAMA_70B = "workloads/llm/configs/llama_2_7b.json", "workloads/llm/configs/llama_2_70b.json"
LLAMA_3_8B = "workloads/llm/configs/llama_3_8b.json"


def _steps(model: str, tp: int = 1):
    arch = load_arch(ARCH)
    parallel = TensorParallel(tp, arch.device_link_bandwidth, arch.all_reduce_latency)
    return [StepModel(arch, read_hf_config(model), tp=parallel, kv_reads=reads)
            for reads in ("per_kv_head", "per_query_head")]


def test_a_multi_head_model_runs_the_same_kernel_either_way():
    gqa, mmha = _steps(LLAMA_7B)
    decode = Iteration(decode=24, decode_span=1024, heads=24)
    assert gqa.cost(decode) == mmha.cost(decode)


def test_llama_2_70b_decode_attention_is_l2_bound_at_eight_times_the_reads():
    gqa, mmha = _steps(LLAMA_70B, tp=4)
    # the weights and the prefill do not depend on the decode kernel
    prefill = Iteration(prefill=512, prefill_span=512, heads=1)
    assert gqa.cost(prefill) == mmha.cost(prefill)
    # per extra sequence, the kernel's time grows by its cache's L2 stream: 2 KV heads x 2 x 1152 x 128 x 2 B read
    # once per query head (8 per KV head), 9,437,184 B, over the L2's 3837.5 B per cycle at 1410 MHz (1.74 us),
    # where the GQA-aware kernel reads it once from DRAM: 1,179,648 B at 1254.6 B per cycle (0.67 us)
    def per_sequence(step):
        return (step._decode_attention(17, 1152).seconds - step._decode_attention(16, 1152).seconds)
    # (both also run the sequence's softmax on the vector unit, the same in both: the difference is the streams')
    clock = load_arch(ARCH).clock
    assert per_sequence(mmha) - per_sequence(gqa) == pytest.approx((9_437_184 / 3837.5 - 1_179_648 / 1254.6) / clock,
                                                                   rel=0.05)


def test_a_case_names_a_known_kernel(tmp_path):
    case = {"name": "c", "device": ARCH, "workload": LLAMA_70B, "conditions": {"batch": 4}, "quantity": "tokens_per_s",
            "unit": "tokens/s", "measured": 1.0, "source": "s", "tolerance": 0.2,
            "serving": {"model": LLAMA_70B, "requests": 4, "prompt_tokens": 8, "output_tokens": 8, "kv_reads": "once"}}
    path = tmp_path / "group.yaml"
    path.write_text(yaml.safe_dump({"group": "g", "description": "d", "cases": [case]}))
    with pytest.raises(InputError, match="kv_reads"):
        load_group(path)


def test_the_tensor_rt_llm_v0_6_1_cases_name_its_masked_multi_head_attention():
    group = load_group("measured_hardware/llm_serving.yaml")
    assert {case.serving.kv_reads for case in group.cases} == {"per_query_head"}


def _tpot_p50_ms(capsys, *options: str) -> float:
    result = run_cli(capsys, "serve", "--model", LLAMA_3_8B, "--arch", "ampere_a100_serving", "--requests", "2",
                     "--prompt-tokens", "1024", "--output-tokens", "4", "--lengths", "fixed", *options)
    assert result.code == 0, result
    line = next(line for line in result.out.splitlines() if line.strip().startswith("TPOT"))
    return float(line.split()[2])


def test_serve_kv_reads_option_picks_the_decode_kernel(capsys):
    # Llama-3-8B: 8 KV heads of 4 query heads each; the masked multi-head kernel reads each KV head's cache 4 times
    default, gqa = _tpot_p50_ms(capsys), _tpot_p50_ms(capsys, "--kv-reads", "per_kv_head")
    mmha = _tpot_p50_ms(capsys, "--kv-reads", "per_query_head")
    assert default == gqa < mmha


def test_serve_refuses_an_unknown_kv_reads_in_one_line(capsys):
    assert_one_line_error(run_cli(capsys, "serve", "--model", LLAMA_3_8B, "--kv-reads", "once"),
                          "--kv-reads", "once", "per_kv_head, per_query_head")
