"""Issue 21: every case a hostile user tried ends in exit 2 with one line naming the file and
the field (or a correct result), nothing is simulated before an output-folder error, and no
run's results are lost or silently overwritten."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import accel_sim.systems.sweep
from accel_sim.foundations.contract import Family

from cli_helpers import assert_one_line_error, run_cli

REPO = Path(__file__).resolve().parents[2]
FAST = ("--arch", "scalesim_32x32_ws", "--workload", "tiny_conv", "--no-figure")


@pytest.fixture
def no_simulation(monkeypatch):
    """Any layer simulated fails the test: output errors must come before any work."""
    def refuse(*args, **kwargs):
        raise AssertionError("simulated before the output-folder error")
    monkeypatch.setattr(Family, "counters", refuse)


def tiny_sweep(tmp_path: Path, name: str, rows: int = 8) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\narch: scalesim_32x32_ws\nworkload: tiny_conv\naxes:\n"
                    f"  systolic.rows: [{rows}]\nmetrics: [edp]\n")
    return path


def onnx_model() -> str:
    return str(REPO / "examples" / "model.onnx")


def commands(tmp_path: Path, out: Path) -> dict[str, tuple[str, ...]]:
    return {"run": ("run", *FAST, "--out", out),
            "sweep": ("sweep", tiny_sweep(tmp_path, "s"), "--out", out),
            "reproduce": ("reproduce", "storage-formats", "--out", out),
            "trace": ("trace", "--arch", "eie_4pe_example", "--workload", "eie_4pe_example", "--out", out),
            "import-onnx": ("import-onnx", onnx_model(), "--out", out)}


@pytest.mark.parametrize("command", ["run", "sweep", "reproduce", "trace", "import-onnx"])
def test_out_that_is_a_file_is_refused_before_any_work(command, tmp_path, capsys, no_simulation):
    a_file = tmp_path / "a_file"
    a_file.write_text("mine")
    assert_one_line_error(run_cli(capsys, *commands(tmp_path, a_file)[command]),
                          f"--out: {a_file}: exists and is a file")
    assert_one_line_error(run_cli(capsys, *commands(tmp_path, a_file / "sub")[command]),
                          f"{a_file} is a file, not a folder")
    assert a_file.read_text() == "mine"


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc (not writable, even by root)")
@pytest.mark.parametrize("command", ["run", "sweep", "reproduce", "trace", "import-onnx"])
def test_unwritable_out_is_refused_before_any_work(command, tmp_path, capsys, no_simulation):
    assert_one_line_error(run_cli(capsys, *commands(tmp_path, Path("/proc/accel_sim_out"))[command]),
                          "--out: /proc/accel_sim_out: cannot write there")


def test_storage_out_must_be_a_writable_csv_file(tmp_path, capsys):
    assert_one_line_error(run_cli(capsys, "storage", "--workload", "tiny_conv", "--format", "csr",
                                  "--out", tmp_path), "is a folder")
    (tmp_path / "f").write_text("")
    assert_one_line_error(run_cli(capsys, "storage", "--workload", "tiny_conv", "--format", "csr",
                                  "--out", tmp_path / "f" / "t.csv"), "is a file, not a folder")


def test_another_runs_results_are_kept_unless_forced(tmp_path, capsys):
    out = tmp_path / "report"
    assert run_cli(capsys, "run", *FAST, "--out", out).code == 0
    first = (out / "layers.csv").read_text()
    assert run_cli(capsys, "run", *FAST, "--out", out).code == 0   # the same run again: replaced, same numbers
    other = ("run", *FAST, "--set", "systolic.rows=8", "--out", out)
    assert_one_line_error(run_cli(capsys, *other), f"--out: {out}: already holds the results of another run "
                          "(run --arch scalesim_32x32_ws --workload tiny_conv)", "--force")
    assert (out / "layers.csv").read_text() == first
    assert run_cli(capsys, *other, "--force").code == 0
    assert (out / "layers.csv").read_text() != first


def test_a_folder_with_foreign_files_is_refused(tmp_path, capsys, no_simulation):
    (tmp_path / "notes.txt").write_text("mine")
    assert_one_line_error(run_cli(capsys, "run", *FAST, "--out", tmp_path), "files of another run (notes.txt)")


def test_a_different_sweep_into_a_used_folder_is_refused_the_same_one_resumes(tmp_path, capsys):
    out = tmp_path / "out"
    assert run_cli(capsys, "sweep", tiny_sweep(tmp_path, "first"), "--out", out, "--quiet").code == 0
    before = (out / "results.csv").read_text()
    assert_one_line_error(run_cli(capsys, "sweep", tiny_sweep(tmp_path, "second", rows=16), "--out", out),
                          "already holds the results of another run (sweep first)")
    assert (out / "results.csv").read_text() == before
    resumed = run_cli(capsys, "sweep", tiny_sweep(tmp_path, "first"), "--out", out, "--quiet")
    assert resumed.code == 0 and "0 computed, 1 already stored" in resumed.out


def test_ctrl_c_says_what_was_saved_and_how_to_resume(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    sweep = tiny_sweep(tmp_path, "first")
    assert run_cli(capsys, "sweep", sweep, "--out", out, "--quiet").code == 0

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(accel_sim.systems.sweep, "run_sweep", interrupted)
    result = run_cli(capsys, "sweep", sweep, "--out", out)
    assert result.code == 130
    assert result.err_lines == [f"accel-sim: interrupted; 1 configs of sweep first are saved in {out}; run the "
                                "same command again to compute only the missing ones"]


def test_duplicate_yaml_key_names_file_line_and_key(tmp_path, capsys):
    arch = tmp_path / "dup.yaml"
    arch.write_text("extends: scalesim_32x32_ws\nsystolic:\n  rows: 8\nsystolic:\n  cols: 8\n")
    assert_one_line_error(run_cli(capsys, "run", "--arch", arch, "--workload", "tiny_conv"),
                          f"{arch}: line 4, column 1: key 'systolic' given twice (first on line 2)")
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(tiny_sweep(tmp_path, "s").read_text() + "name: again\n")
    assert_one_line_error(run_cli(capsys, "sweep", sweep, "--out", tmp_path / "o"), "key 'name' given twice")
    assert_one_line_error(run_cli(capsys, "run", *FAST, "--set", "systolic.ifmap_sram={size: 1 KiB, size: 2 KiB}"),
                          "--set systolic.ifmap_sram: line 1", "key 'size' given twice")


def big_conv(tmp_path: Path, channels: int, size: int) -> Path:
    path = tmp_path / "big.yaml"
    path.write_text(f"name: big\nlayers:\n  - {{name: huge, type: conv, in_h: {size}, in_w: {size}, "
                    f"in_channels: {channels}, out_channels: 64, kernel: 3, padding: 1}}\n")
    return path


@pytest.mark.parametrize("arch", ["scalesim_32x32_ws", "dlu", "scnn"])
@pytest.mark.parametrize("channels, size", [(10**12, 16), (100_000, 224)])
def test_a_layer_too_large_is_refused_before_allocating(arch, channels, size, tmp_path, capsys):
    assert_one_line_error(run_cli(capsys, "run", "--arch", arch, "--workload", big_conv(tmp_path, channels, size)),
                          "layer huge", "values", "GiB", "refused before allocating")


def test_an_array_too_large_is_refused_before_allocating(capsys):
    assert_one_line_error(run_cli(capsys, "run", *FAST, "--set", "systolic.rows=1000000000000"),
                          "layer conv1", "on scalesim_32x32_ws needs about", "refused before allocating")


def test_stride_0_in_a_scalesim_topology(tmp_path, capsys):
    csv = tmp_path / "topo.csv"
    csv.write_text("Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, "
                   "Strides,\nc1, 8, 8, 3, 3, 4, 4, 0,\n")
    assert_one_line_error(run_cli(capsys, "run", "--arch", "scalesim_32x32_ws", "--workload", csv),
                          f"{csv}: line 2 (c1): stride_h must be > 0, got 0")


def test_a_model_refusing_a_config_is_bad_input(capsys):
    assert_one_line_error(run_cli(capsys, "run", *FAST, "--set", "systolic.ifmap_sram.size=1"),
                          "--set (on ", "scalesim_32x32_ws.yaml): layer conv1:", "systolic.ifmap_sram.size 1 B")
    assert_one_line_error(run_cli(capsys, "encode", "--format", "csr", "--value-bits", "-8", "[[0,1],[2,0]]"),
                          "--value-bits: -8: value_bits must be >= 1")


def test_nm_pattern_contradicting_the_density(tmp_path, capsys):
    workload = tmp_path / "w.yaml"
    workload.write_text("name: w\nlayers:\n  - {name: fc, type: fc, in_features: 8, out_features: 4, "
                        "weight_sparsity: '2:4', weight_density: 0.9}\n")
    assert_one_line_error(run_cli(capsys, "run", "--arch", "ampere_a100", "--workload", workload),
                          f"{workload}: layers[0] (fc): weight_density 0.9 contradicts weight_sparsity 2:4")


@pytest.mark.parametrize("arch", ["scalesim_32x32_ws", "eie", "dlu"])
def test_a_payload_of_the_wrong_shape_is_refused_by_every_family(arch, tmp_path, capsys):
    np.savez(tmp_path / "w.npz", weights=np.ones((3, 3), np.float32))
    workload = tmp_path / "w.yaml"
    workload.write_text("name: w\nlayers:\n  - {name: fc, type: fc, in_features: 8, out_features: 4, "
                        "operands: w.npz}\n")
    assert_one_line_error(run_cli(capsys, "run", "--arch", arch, "--workload", workload),
                          "layers[0] (fc).operands", "weights: shape (3, 3) does not match the layer's (8, 4)")


def test_reference_run_shows_progress_quiet_turns_it_off(capsys):
    loud = run_cli(capsys, "run", *FAST, "--reference")
    assert loud.code == 0
    assert loud.err_lines[-1].startswith("tiny_conv on scalesim_32x32_ws: 3/3 layers (100%)")
    quiet = run_cli(capsys, "run", *FAST, "--reference", "--quiet")
    assert quiet.code == 0 and quiet.err == "" and quiet.out == loud.out


def test_reproduce_all_shows_one_line_per_study(tmp_path, capsys, monkeypatch):
    import matplotlib.pyplot as plt
    import pandas as pd

    from accel_sim.studies import registry

    def tiny():
        return registry.StudyOutput(pd.DataFrame({"x": [1]}), plt.figure(), "tiny")
    studies = {n: registry.Study(n, n, tiny) for n in ("a", "b")}
    monkeypatch.setattr(registry, "all_studies", lambda: studies)
    result = run_cli(capsys, "reproduce", "all", "--out", tmp_path / "g")
    assert result.code == 0
    lines = result.err_lines
    assert lines[0].startswith("reproduce all: study 1/2 a (elapsed 0:00:0")
    assert lines[1].startswith("reproduce all: study 2/2 b ")
    assert lines[2].startswith("reproduce all: 2 studies in ")
    assert run_cli(capsys, "reproduce", "all", "--out", tmp_path / "g2", "--quiet").err == ""


@pytest.mark.skipif(pytest.importorskip("onnx") is None, reason="needs the onnx extra")
def test_the_readme_import_onnx_line_works_as_written(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(REPO)
    line = next(line for line in (REPO / "README.md").read_text().splitlines() if "accel-sim import-onnx" in line)
    args = line.split("#")[0].split()[1:]
    assert args[:2] == ["import-onnx", "examples/model.onnx"]
    result = run_cli(capsys, *args[:2], "--out", tmp_path / "model")
    assert result.code == 0 and "imported 3 layers" in result.out and "not simulated: Flatten x1, Relu x1" in result.out


def test_a_2_byte_calc_read_buffer_is_refused_not_cheaper(capsys):
    """Issue 21: a 2-byte ifmap SRAM on a CALC arch reported less energy than 6 MiB. SCALE-Sim's
    estimate buffer has floor(words / 100)-word sets, so below 100 words it never evicts and
    counts each address once: such a buffer is refused, naming the field."""
    assert_one_line_error(run_cli(capsys, "run", "--arch", "tpu_like_128x128_ws", "--workload", "tiny_conv",
                                  "--no-figure", "--set", "systolic.ifmap_sram.size=2 B"),
                          "tpu_like_128x128_ws.yaml", "systolic.ifmap_sram.size 2 B", "fewer than the 100")
