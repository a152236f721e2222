"""The launch gap of vector kernels as configured: the shipped configs (GPUs: their tensor core's measured gap;
accelerators: none) and the workload field ``launches``."""
from __future__ import annotations

from accel_sim.cli.main import main
from accel_sim.pipeline.catalog import load_arch


def test_shipped_gpu_configs_charge_their_tensor_cores_gap_and_accelerators_none():
    for name in ("ampere_a100", "ampere_a100_80gb_serving", "hopper_h100_serving"):
        arch = load_arch(name)
        assert arch.vector_unit.kernel_launch_cycles == arch.tensor_core.kernel_launch_cycles > 0
    assert load_arch("tpu_like_128x128_ws").vector_unit.kernel_launch_cycles == 0


def _workload(tmp_path, extra: str) -> str:
    path = tmp_path / "w.yaml"
    path.write_text("name: t\nlayers:\n  - {name: add, type: vector, op: residual_add, m: 1, n: 64" + extra + "}\n"
                    "  - {name: act, type: vector, op: gelu, m: 1, n: 64}\n")
    return str(path)


def test_workload_field_launches(tmp_path, capsys):
    from accel_sim.foundations.workload import load_workload

    layers = load_workload(_workload(tmp_path, ", launches: false")).layers
    assert [layer.launches for layer in layers] == [False, True]
    assert main(["run", "--workload", _workload(tmp_path, ", launches: 3")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "launches" in err[0] and "w.yaml" in err[0]
    gemm = tmp_path / "g.yaml"
    gemm.write_text("name: g\nlayers:\n  - {name: g, type: gemm, m: 2, k: 8, n: 4, launches: false}\n")
    assert main(["run", "--workload", str(gemm)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "launches" in err[0] and "g.yaml" in err[0]
