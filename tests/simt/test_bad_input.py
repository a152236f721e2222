"""Bad input on the command line: one clear line naming the arch / layer, the field and what was
expected, exit code 2 (a kernel needing more shared memory than the SM has, a CTA above the thread
limit, a block that does not divide the sparse operand, 2:4 on unmarked weights, transpose on a
kernel without it)."""
from __future__ import annotations

from tests.cli.cli_helpers import assert_one_line_error, run_cli

RUN = ("run", "--arch", "ampere_a100_simt", "--no-figure", "--quiet")


def test_kernel_needing_more_shared_memory_than_the_sm_has(capsys, tmp_path):
    result = run_cli(capsys, *RUN, "--workload", "lenet_300_100", "--out", tmp_path, "--set", "simt.kernel=csb",
                     "--set", "simt.csb_beta=65536")
    assert_one_line_error(result, "ampere_a100_simt / ip1", "shared memory", "the SM has 167936")


def test_cta_larger_than_the_thread_limit(capsys, tmp_path):
    result = run_cli(capsys, *RUN, "--workload", "lenet_300_100", "--out", tmp_path, "--set", "simt.threads_per_cta=4096")
    assert_one_line_error(result, "simt.threads_per_cta", "4096", "1024")


def test_block_that_does_not_divide_the_matrix(capsys, tmp_path):
    result = run_cli(capsys, *RUN, "--workload", "lenet_300_100", "--out", tmp_path, "--set", "simt.kernel=bsr")
    assert_one_line_error(result, "ip1", "simt.block", "block 16 does not divide the 300 x 784")


def test_two_four_kernel_on_unmarked_weights(capsys, tmp_path):
    result = run_cli(capsys, *RUN, "--workload", "lenet_300_100", "--out", tmp_path, "--set", "simt.kernel=nm_tensor_core")
    assert_one_line_error(result, "weight_sparsity", "nm_tensor_core runs layers marked 2:4")


def test_transpose_on_a_kernel_without_it(capsys, tmp_path):
    result = run_cli(capsys, *RUN, "--workload", "lenet_300_100", "--out", tmp_path, "--set", "simt.transpose=true")
    assert_one_line_error(result, "transpose runs on csr_scalar, csr_vector, csb, not sputnik")
