"""``--arch scnn_dnnsim`` on layers DNNsim's development set does not have: strides 2-4 with
padding that is and is not a multiple of the stride, 1 x 1 to 11 x 11 kernels, rectangular planes,
several output-channel groups, densities 5-100 %, and fully connected layers (DNNsim runs them as
16 x 16 planes). The expected cycles and multiplications come from :mod:`tests.scnn.dnnsim_rules`,
a product-by-product statement of DNNsim's rules that shares no code with the model; it
reproduces DNNsim's printed cycles on the development layers (checked here too)."""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from accel_sim import load_arch, load_workload
from accel_sim.models.scnn.family import FAMILY
from tests.scnn.dnnsim_rules import dnnsim_cycles

DATA = Path(__file__).parents[1] / "data" / "dnnsim_scnn"
ARCH = load_arch("scnn_dnnsim")


def _run(tmp_path: Path, layer_yaml: str, weights: np.ndarray, inputs: np.ndarray, reference: bool = False,
         arch=ARCH):
    np.savez(tmp_path / "layer.npz", weights=weights, inputs=inputs)
    (tmp_path / "w.yaml").write_text(f"name: unseen\nlayers:\n  - {{name: l, operands: layer.npz, {layer_yaml}}}\n")
    plan = FAMILY.plan(arch, load_workload(tmp_path / "w.yaml").layers[0])
    fast = FAMILY.fast(plan)
    if reference:
        assert FAMILY.reference(plan) == fast
    return fast.compute_cycles, fast.macs_issued


@pytest.mark.parametrize("name,pad", [("inception_4a-5x5_reduce", 0), ("inception_4a-5x5", 2),
                                      ("inception_5b-pool_proj", 0)])
def test_the_oracle_gives_dnnsims_printed_cycles(name, pad):
    want = {row["layer"]: row for row in csv.DictReader(open(DATA / "dnnsim_cycles.csv"))}[name]
    ops = np.load(DATA / f"{name}.npz")
    assert dnnsim_cycles(ops["weights"], ops["inputs"], 1, pad) == (int(want["cycles"]), int(want["mults"]))


def _conv_case(seed: int):
    rng = np.random.default_rng(seed)
    kernel = int(rng.choice([1, 3, 3, 5, 7, 11]))
    stride = int(rng.choice([1, 2, 2, 3, 4]))
    pad = int(rng.integers(0, kernel // 2 + 2)) if kernel > 1 else 0
    h, w = (int(rng.integers(kernel, 30)) for _ in range(2))
    c, k = int(rng.integers(1, 5)), int(rng.integers(1, 90))
    weights = (rng.random((k, c, kernel, kernel)) < rng.uniform(0.05, 1)).astype(np.int16)
    inputs = (rng.random((1, c, h, w)) < rng.uniform(0.05, 1)).astype(np.int16)
    return (f"type: conv, in_channels: {c}, out_channels: {k}, in_h: {h}, in_w: {w}, kernel: {kernel}, "
            f"stride: {stride}, padding: {pad}"), weights, inputs, stride, pad


@pytest.mark.parametrize("seed", range(24))
def test_unseen_conv_layers_give_dnnsims_cycles(tmp_path, seed):
    layer_yaml, weights, inputs, stride, pad = _conv_case(seed)
    assert _run(tmp_path, layer_yaml, weights, inputs, reference=seed < 4) == dnnsim_cycles(weights, inputs,
                                                                                             stride, pad)


def test_a_stride_whose_padding_is_not_a_multiple_pairs_phases_as_dnnsim_does(tmp_path):
    """GoogLeNet conv1's shape class (7 x 7, stride 2, pad 3): DNNsim pairs activation phase
    (y + pad) % 2 with weight phase (r + pad) % 2 and truncates the output row toward zero, so it
    multiplies pairs the convolution never meets; the aligned pairing gives other counts."""
    rng = np.random.default_rng(7)
    weights = (rng.random((8, 3, 7, 7)) < 0.5).astype(np.int16)
    inputs = (rng.random((1, 3, 20, 20)) < 0.6).astype(np.int16)
    layer = "type: conv, in_channels: 3, out_channels: 8, in_h: 20, in_w: 20, kernel: 7, stride: 2, padding: 3"
    want = dnnsim_cycles(weights, inputs, 2, 3)
    assert _run(tmp_path, layer, weights, inputs, reference=True) == want
    aligned = _run(tmp_path, layer, weights, inputs, reference=True,
                   arch=load_arch("scnn_dnnsim", {"scnn.stride_phases": "aligned"}))
    assert aligned[1] < want[1]   # the aligned pairing multiplies only the convolution's pairs


@pytest.mark.parametrize("features,outputs", [(300, 20), (1000, 70), (40, 1100)])
def test_unseen_fc_layers_run_as_dnnsims_16x16_planes(tmp_path, features, outputs):
    rng = np.random.default_rng(features)
    weights = (rng.random((outputs, features)) < 0.3).astype(np.int16)
    inputs = (rng.random((1, features)) < 0.5).astype(np.int16)
    padded = -(-features // 256) * 256
    planes = padded // 256
    want = dnnsim_cycles(np.pad(weights, ((0, 0), (0, padded - features))).reshape(outputs, planes, 16, 16),
                         np.pad(inputs, ((0, 0), (0, padded - features))).reshape(1, planes, 16, 16), 1, 0)
    got = _run(tmp_path, f"type: fc, in_features: {features}, out_features: {outputs}", weights.T, inputs,
               reference=outputs < 100)
    assert got == want
