"""A layer's concrete operands (``accel_sim.foundations.workload.operands``): generated at the layer's
densities and patterns, seeded, or loaded from an ``.npz`` payload; bad payloads and huge
layers give one-line InputErrors."""
from __future__ import annotations

import math
import zipfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.cli.main import main
from accel_sim.foundations.compress._checks import count_for_density
from accel_sim.foundations.errors import InputError
from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer, NMSparsity, OperandSource
from accel_sim.foundations.workload.loader import load_workload
from accel_sim.foundations.workload.operands import (
    MAX_OPERAND_ELEMENTS,
    _cached_operands,
    content_hash,
    input_shape,
    layer_operands,
    weight_matrix,
    weight_shape,
    weight_spec,
)


def conv(name="c", density=0.3, input_density=0.6, pattern="unstructured", seed=0, groups=1, payload=None,
         block=4, nm=None, activation_pattern="uniform"):
    return ConvLayer(name, in_h=9, in_w=7, in_channels=8, out_channels=16, kernel_h=3, kernel_w=3, groups=groups,
                     pad_top=1, pad_bottom=1, pad_left=1, pad_right=1, weight_density=density,
                     input_density=input_density, weight_sparsity=nm,
                     operands=OperandSource(weight_pattern=pattern, activation_pattern=activation_pattern,
                                            block=block, seed=seed, payload=payload))


def gemm(name="g", m=5, k=24, n=12, density=0.25, input_density=0.5, pattern="unstructured", seed=0, payload=None,
         nm=None, block=4):
    return GemmLayer(name, m=m, k=k, n=n, weight_density=density, input_density=input_density, weight_sparsity=nm,
                     operands=OperandSource(weight_pattern=pattern, seed=seed, payload=payload, block=block))


# --- generated operands ------------------------------------------------------------------

def test_layouts_follow_the_documented_shapes():
    layer = conv(groups=2)
    ops = layer_operands(layer)
    assert ops.weights.shape == weight_shape(layer) == (16, 4, 3, 3)
    assert ops.inputs.shape == input_shape(layer) == (1, 8, 9, 7)
    assert weight_matrix(layer, ops.weights).shape == (4 * 3 * 3, 16)  # (C/g R S, K)
    g = gemm()
    assert layer_operands(g).weights.shape == (24, 12) and layer_operands(g).inputs.shape == (5, 24)
    assert ops.weights.dtype == ops.inputs.dtype == np.float32
    assert not ops.weights.flags.writeable and not ops.inputs.flags.writeable


@settings(max_examples=40, deadline=None)
@given(density=st.floats(0.01, 1.0), input_density=st.floats(0.01, 1.0), seed=st.integers(0, 2**31),
       is_conv=st.booleans(), activation_pattern=st.sampled_from(["uniform", "clustered"]))
def test_unstructured_densities_are_exact(density, input_density, seed, is_conv, activation_pattern):
    layer = (conv(density=density, input_density=input_density, seed=seed, activation_pattern=activation_pattern)
             if is_conv else gemm(density=density, input_density=input_density, seed=seed))
    ops = layer_operands(layer)
    assert np.count_nonzero(ops.weights) == count_for_density(density, ops.weights.size)
    assert abs(np.count_nonzero(ops.weights) - density * ops.weights.size) <= 1
    assert abs(np.count_nonzero(ops.inputs) - input_density * ops.inputs.size) <= 1
    assert (ops.inputs >= 0).all()  # post-ReLU


def test_unstructured_pruning_keeps_the_largest_magnitudes():
    dense = layer_operands(conv(density=1.0)).weights  # same seed and name: the unpruned weights
    kept = np.abs(dense[layer_operands(conv()).weights != 0])
    dropped = np.abs(dense[layer_operands(conv()).weights == 0])
    assert kept.min() >= dropped.max()


def test_nm_layers_keep_n_of_every_m_along_the_reduction():
    for layer in (gemm(k=24, nm=NMSparsity(2, 4), density=0.5, pattern="nm"),
                  conv(nm=NMSparsity(1, 4), density=0.25, pattern="nm"),
                  gemm(k=32, nm=NMSparsity(4, 8), density=0.5, pattern="nm")):
        matrix = weight_matrix(layer, layer_operands(layer).weights)
        m, n = layer.weight_sparsity.m, layer.weight_sparsity.n
        groups = (matrix != 0).reshape(matrix.shape[0] // m, m, matrix.shape[1]).sum(axis=1)
        assert (groups == n).all()  # exactly N: Gaussian weights have no exact zeros


def test_nm_combined_with_a_lower_unstructured_density():
    layer = gemm(k=24, n=16, nm=NMSparsity(2, 4), density=0.25)
    matrix = weight_matrix(layer, layer_operands(layer).weights)
    assert np.count_nonzero(matrix) == count_for_density(0.25, matrix.size)
    assert ((matrix != 0).reshape(6, 4, 16).sum(axis=1) <= 2).all()


def test_block_pattern_keeps_whole_blocks_at_exact_density():
    layer = gemm(k=24, n=12, density=0.5, pattern="block", block=4)
    matrix = weight_matrix(layer, layer_operands(layer).weights)
    blocks = (matrix != 0).reshape(6, 4, 3, 4).transpose(0, 2, 1, 3).reshape(18, 16).sum(axis=1)
    assert set(blocks.tolist()) == {0, 16} and (blocks == 16).sum() == 9
    c = conv(density=0.25, pattern="block", block=4)  # (C R S, K) = (72, 16)
    assert np.count_nonzero(layer_operands(c).weights) == count_for_density(0.25, 18 * 4) * 16


def test_filter_pattern_removes_whole_filters():
    layer = conv(density=0.25, pattern="filter")
    weights = layer_operands(layer).weights
    alive = np.abs(weights).reshape(16, -1).sum(axis=1) > 0
    assert alive.sum() == 4 and (weights[alive] != 0).all()
    g = gemm(density=0.5, pattern="filter")
    columns = (layer_operands(g).weights != 0).any(axis=0)
    assert columns.sum() == 6


def test_channel_pattern_removes_whole_input_channels():
    weights = layer_operands(conv(density=0.25, pattern="channel")).weights  # (16, 8, 3, 3)
    alive = (weights != 0).any(axis=(0, 2, 3))
    assert alive.sum() == 2 and (weights[:, alive] != 0).all()
    rows = (layer_operands(gemm(density=0.5, pattern="channel")).weights != 0).any(axis=1)
    assert rows.sum() == 12


def test_kernel_and_vector_patterns_keep_whole_kernels_and_rows():
    kernels = (layer_operands(conv(density=0.25, pattern="kernel")).weights != 0).reshape(16 * 8, 9).sum(axis=1)
    assert set(kernels.tolist()) == {0, 9} and (kernels == 9).sum() == 32
    rows = (layer_operands(conv(density=0.5, pattern="vector")).weights != 0).reshape(16 * 8 * 3, 3).sum(axis=1)
    assert set(rows.tolist()) == {0, 3} and (rows == 3).sum() == 16 * 8 * 3 // 2
    runs = (layer_operands(gemm(density=0.5, pattern="vector", block=4)).weights != 0).reshape(6, 4, 12).sum(axis=1)
    assert set(runs.ravel().tolist()) == {0, 4} and (runs == 4).sum() == 36


def test_grouped_and_depthwise_convs():
    dw = ConvLayer("dw", in_h=6, in_w=6, in_channels=8, out_channels=8, kernel_h=3, kernel_w=3, groups=8,
                   weight_density=0.5)
    ops = layer_operands(dw)
    assert ops.weights.shape == (8, 1, 3, 3) and np.count_nonzero(ops.weights) == 36


def test_clustered_activations_are_spatially_coherent():
    layer = ConvLayer("act", in_h=32, in_w=32, in_channels=4, out_channels=4, kernel_h=1, kernel_w=1,
                      input_density=0.3, operands=OperandSource(activation_pattern="clustered"))
    uniform = ConvLayer("act", in_h=32, in_w=32, in_channels=4, out_channels=4, kernel_h=1, kernel_w=1,
                        input_density=0.3)

    def neighbour_agreement(x):
        nz = x[0] != 0
        return (nz[:, 1:, :] == nz[:, :-1, :]).mean()

    clustered_inputs, uniform_inputs = layer_operands(layer).inputs, layer_operands(uniform).inputs
    assert np.count_nonzero(clustered_inputs) == np.count_nonzero(uniform_inputs)
    assert neighbour_agreement(clustered_inputs) > neighbour_agreement(uniform_inputs) + 0.1


# --- determinism and hashes ----------------------------------------------------------------

def test_same_seed_same_bits_and_hash_different_seed_differs():
    a, b = layer_operands(conv(seed=3)), layer_operands(conv(seed=3))
    _cached_operands.cache_clear()  # regenerate from scratch: same bits, not the cached object
    c = layer_operands(conv(seed=3))
    assert np.array_equal(a.weights, c.weights) and np.array_equal(a.inputs, c.inputs)
    assert a.hashes == b.hashes == c.hashes
    d = layer_operands(conv(seed=4))
    assert not np.array_equal(a.weights, d.weights) and a.weight_hash != d.weight_hash
    assert a.input_hash != d.input_hash
    renamed = layer_operands(conv(name="other", seed=3))  # the layer name is part of the stream
    assert renamed.weight_hash != a.weight_hash


def test_generated_hashes_come_from_the_spec_without_generating(monkeypatch):
    import accel_sim.foundations.workload.operands as operands
    monkeypatch.setattr(operands, "_generated_weights", lambda *a: pytest.fail("weights generated for a hash"))
    monkeypatch.setattr(operands, "synthetic_activations", lambda *a, **k: pytest.fail("inputs generated for a hash"))
    _cached_operands.cache_clear()
    base = layer_operands(conv(seed=3)).hashes
    _cached_operands.cache_clear()
    assert layer_operands(conv(seed=3)).hashes == base  # deterministic, not object identity
    assert all(len(h) == 16 for h in base.values())
    # every field the generation reads changes the hash of the tensor it shapes, and only that one
    weight_changes = [conv(seed=3, density=0.31), conv(seed=3, pattern="block"), conv(seed=3, pattern="block", block=2),
                      conv(seed=3, nm=NMSparsity(2, 4)), conv(seed=3, groups=2)]
    for layer in weight_changes:
        changed = layer_operands(layer).hashes
        assert changed["weight_hash"] != base["weight_hash"], layer
    for layer in (conv(seed=3, input_density=0.61), conv(seed=3, activation_pattern="clustered")):
        changed = layer_operands(layer).hashes
        assert changed["input_hash"] != base["input_hash"] and changed["weight_hash"] == base["weight_hash"], layer
    # same numbers, another layout: a GEMM (k, n) and a 1 x 1 conv differ
    as_gemm = GemmLayer("c", m=1, k=8, n=16, weight_density=0.3)
    as_conv = ConvLayer("c", in_h=1, in_w=1, in_channels=8, out_channels=16, kernel_h=1, kernel_w=1,
                        weight_density=0.3)
    assert layer_operands(as_gemm).weight_hash != layer_operands(as_conv).weight_hash
    _cached_operands.cache_clear()


def test_generator_version_and_numpy_version_enter_the_hash(monkeypatch):
    import accel_sim.foundations.workload.operands as operands
    _cached_operands.cache_clear()
    before = layer_operands(gemm()).weight_hash
    monkeypatch.setattr(operands, "GENERATOR_VERSION", operands.GENERATOR_VERSION + 1)
    _cached_operands.cache_clear()
    bumped = layer_operands(gemm()).weight_hash
    monkeypatch.setattr(operands.np, "__version__", "0.0.0")
    _cached_operands.cache_clear()
    assert len({before, bumped, layer_operands(gemm()).weight_hash}) == 3
    _cached_operands.cache_clear()


def test_dense_tensor_core_and_cnvlutin_runs_generate_only_what_they_read(monkeypatch):
    import accel_sim.foundations.workload.operands as operands
    from accel_sim import load_arch
    from accel_sim.pipeline.simulate import simulate_layer
    made = []
    real_weights, real_inputs = operands._generated_weights, operands.synthetic_activations
    monkeypatch.setattr(operands, "_generated_weights", lambda *a: made.append("weights") or real_weights(*a))
    monkeypatch.setattr(operands, "synthetic_activations",
                        lambda *a, **k: made.append("inputs") or real_inputs(*a, **k))
    _cached_operands.cache_clear()
    dense = GemmLayer("dense", m=256, k=256, n=256)
    result = simulate_layer(load_arch("ampere_a100_dense"), dense)
    assert made == [] and result.result.operand_hashes == layer_operands(dense).hashes
    simulate_layer(load_arch("cnvlutin"), conv())  # Cnvlutin skips zero activations: it reads only the inputs
    assert made == ["inputs"]
    _cached_operands.cache_clear()


@pytest.mark.parametrize("layer", [gemm(k=40, n=30, density=0.2), conv(density=0.1), conv(density=0.5),
                                   gemm(k=3, n=2, density=0.5)])
def test_sparse_selection_keeps_the_keep_top_entries_with_ties_and_drawn_zeros(layer):
    from accel_sim.foundations.compress._selection import keep_top
    from accel_sim.foundations.workload.operands import _DRAWN_ZERO, _magnitude_pruned
    rng = np.random.default_rng(1)
    # few distinct magnitudes (many ties at the threshold) and exact zeros
    dense = rng.choice(np.float32([0, 0.5, -0.5, 1, -1, 2]), size=weight_shape(layer)).astype(np.float32)
    raised = np.where(dense == 0, _DRAWN_ZERO, dense)
    matrix = weight_matrix(layer, raised)
    mask = keep_top(np.abs(matrix).ravel(), count_for_density(layer.weight_density, matrix.size)).reshape(matrix.shape)
    expected = np.where(mask, matrix, np.float32(0))
    expected = expected.T.reshape(dense.shape) if isinstance(layer, ConvLayer) else expected
    assert _magnitude_pruned(layer, dense.copy()).tobytes() == np.ascontiguousarray(expected).tobytes()


def test_hash_covers_dtype_shape_and_content():
    x = np.arange(6, dtype=np.float32)
    assert content_hash(x) == content_hash(x.copy())
    assert content_hash(x) != content_hash(x.reshape(2, 3))
    assert content_hash(x) != content_hash(x.astype(np.float64))
    y = x.copy()
    y[5] = 7
    assert content_hash(x) != content_hash(y)
    assert len(content_hash(x)) == 16


def test_workload_seed_and_layer_seed_fields(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("name: w\nseed: 11\nlayers:\n"
                    "  - {name: a, type: fc, in_features: 32, out_features: 8, weight_density: 0.5}\n"
                    "  - {name: b, type: fc, in_features: 32, out_features: 8, weight_density: 0.5, seed: 5}\n")
    a, b = load_workload(path).layers
    assert a.operands.seed == 11 and b.operands.seed == 5
    again = tmp_path / "w2.yaml"
    again.write_text(path.read_text().replace("seed: 11", "seed: 12"))
    a2, b2 = load_workload(again).layers
    assert layer_operands(a).weight_hash != layer_operands(a2).weight_hash
    assert layer_operands(b).weight_hash == layer_operands(b2).weight_hash  # own seed: unchanged


def test_pattern_fields_in_workload_files(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text("name: w\nlayers:\n"
                    "  - {name: a, type: gemm, m: 4, k: 16, n: 8, weight_density: 0.5, weight_pattern: block, block: 4,"
                    " activation_pattern: clustered, input_density: 0.5, weight_bits: 5, index_bits: 4}\n"
                    "  - {name: b, type: gemm, m: 4, k: 16, n: 8, weight_sparsity: '2:4', weight_pattern: nm}\n")
    a, b = load_workload(path).layers
    assert a.operands == OperandSource(weight_pattern="block", activation_pattern="clustered", block=4, seed=0)
    assert (a.weight_bits, a.index_bits) == (5, 4) and (b.weight_bits, b.index_bits) == (None, None)
    assert b.weight_sparsity == NMSparsity(2, 4)
    assert np.count_nonzero(layer_operands(b).weights) == 64


# --- payloads ------------------------------------------------------------------------------

def test_payload_round_trip_and_hash_follows_content(tmp_path):
    layer = gemm()
    weights = np.where(np.arange(24 * 12).reshape(24, 12) % 3 == 0, 1.5, 0).astype(np.float64)
    inputs = np.arange(120, dtype=np.int32).reshape(5, 24)
    np.savez(tmp_path / "p.npz", weights=weights, inputs=inputs)
    loaded = layer_operands(gemm(payload=str(tmp_path / "p.npz")))
    assert np.array_equal(loaded.weights, weights) and loaded.weights.dtype == np.float32
    assert np.array_equal(loaded.inputs, inputs)
    assert loaded.weight_hash == content_hash(weights.astype(np.float32))
    assert loaded.weight_hash != layer_operands(layer).weight_hash
    weights[0, 1] = 2.0
    np.savez(tmp_path / "q.npz", weights=weights)
    changed = layer_operands(gemm(payload=str(tmp_path / "q.npz")))
    assert changed.weight_hash != loaded.weight_hash
    assert changed.input_hash == layer_operands(layer).input_hash  # inputs not in the payload: generated


def test_a_payload_is_read_once_per_process_and_again_when_rewritten(tmp_path, monkeypatch):
    import accel_sim.foundations.workload.operands as operands
    path = tmp_path / "kept.npz"
    weights = np.arange(24 * 12, dtype=np.float32).reshape(24, 12)
    np.savez(path, weights=weights)
    operands.keep_payload(path, {"weights": weights})   # as the SIMT studies keep the matrix they just wrote
    with monkeypatch.context() as patch:
        patch.setattr(operands, "_read_payload", lambda *a: pytest.fail("a kept payload read back"))
        for batch in (5, 7):   # two layers of one payload
            assert layer_operands(gemm(m=batch, payload=str(path))).weights.tobytes() == weights.tobytes()
    np.savez(path, weights=weights + 1)   # rewritten with other values (same size): read again
    assert np.array_equal(layer_operands(gemm(m=3, payload=str(path))).weights, weights + 1)


def test_payload_path_is_relative_to_the_workload_file(tmp_path):
    (tmp_path / "data").mkdir()
    weights = np.eye(8, 4, dtype=np.float32)
    np.savez(tmp_path / "data" / "fc.npz", weights=weights)
    (tmp_path / "net.yaml").write_text("name: n\nlayers:\n  - {name: fc, type: fc, in_features: 8, "
                                       "out_features: 4, operands: data/fc.npz}\n")
    (layer,) = load_workload(tmp_path / "net.yaml").layers
    assert layer.operands.payload == str(tmp_path / "data" / "fc.npz")
    assert np.array_equal(layer_operands(layer).weights, weights)


def _bad_payload(tmp_path, kind):
    path = tmp_path / f"{kind}.npz"
    if kind == "corrupt":
        path.write_bytes(b"PK\x03\x04 this is not a zip archive")
    elif kind == "text":
        path.write_text("weights: [1, 2, 3]\n")
    elif kind == "truncated":
        np.savez(path, weights=np.ones((24, 12)))
        path.write_bytes(path.read_bytes()[:100])
    elif kind == "shape":
        np.savez(path, weights=np.ones((12, 24)))
    elif kind == "name":
        np.savez(path, weights=np.ones((24, 12)), biases=np.ones(12))
    elif kind == "nan":
        w = np.ones((24, 12))
        w[3, 4] = np.nan
        np.savez(path, weights=w)
    elif kind == "inf":
        np.savez(path, inputs=np.full((5, 24), np.inf))
    elif kind == "overflow":
        np.savez(path, weights=np.full((24, 12), 1e300))
    elif kind == "strings":
        np.savez(path, weights=np.full((24, 12), "a"))
    elif kind == "complex":
        np.savez(path, weights=np.ones((24, 12), dtype=np.complex64))
    elif kind == "missing":
        pass
    return str(path)


@pytest.mark.parametrize(("kind", "message"), [
    ("corrupt", "not a readable .npz archive"),
    ("text", "not a readable .npz archive"),
    ("truncated", "not a readable .npz archive"),
    ("missing", "payload file not found"),
    ("shape", r"weights: shape \(12, 24\) does not match the layer's \(24, 12\)"),
    ("name", "biases: unexpected array; a payload holds weights and / or inputs"),
    ("nan", "weights: expected finite numbers"),
    ("inf", "inputs: expected finite numbers"),
    ("overflow", "weights: expected finite numbers"),
    ("strings", "weights: expected real numbers"),
    ("complex", "weights: expected real numbers"),
])
def test_bad_payloads_give_one_line_input_errors(tmp_path, kind, message):
    path = _bad_payload(tmp_path, kind)
    with pytest.raises(InputError, match=message) as info:
        layer_operands(gemm(payload=path))
    assert len(info.value.problems) == 1 and "\n" not in str(info.value)
    assert info.value.problems[0].file == path


def test_a_wrong_shape_is_refused_from_the_header_before_reading(tmp_path, monkeypatch):
    path = _bad_payload(tmp_path, "shape")
    monkeypatch.setattr(np, "load", lambda *a, **k: pytest.fail("np.load must not be reached"))
    with pytest.raises(InputError, match="does not match"):
        layer_operands(gemm(payload=path))


# --- huge layers ---------------------------------------------------------------------------

@pytest.mark.parametrize("layer", [
    GemmLayer("huge_fc", m=1, k=10**6, n=10**5),                                # 10^11 weights
    ConvLayer("huge_conv", in_h=10**5, in_w=10**5, in_channels=10, out_channels=1, kernel_h=1, kernel_w=1),
])
def test_a_layer_of_1e11_elements_is_refused_before_allocating(layer, monkeypatch):
    monkeypatch.setattr(np.random, "default_rng", lambda *a: pytest.fail("nothing may be generated"))
    ops = layer_operands(layer)
    assert len(ops.hashes) == 2  # a model that never reads values (dense cycles) may still run it
    huge = "weights" if math.prod(weight_shape(layer)) > MAX_OPERAND_ELEMENTS else "inputs"
    with pytest.raises(InputError, match="exceed the limit") as info:
        getattr(ops, huge)
    assert len(info.value.problems) == 1 and info.value.problems[0].file == layer.name
    assert "100,000,000,000 elements" in str(info.value)
    assert math.prod(weight_shape(layer)) > MAX_OPERAND_ELEMENTS or math.prod(input_shape(layer)) > MAX_OPERAND_ELEMENTS


# --- bad workload fields -------------------------------------------------------------------

@pytest.mark.parametrize(("entry", "message"), [
    ("weight_density: 1.5", r"weight_density must be in \(0, 1\]"),
    ("weight_density: -0.1", r"weight_density must be in \(0, 1\]"),
    ("input_density: 2", r"input_density must be in \(0, 1\]"),
    ("weight_sparsity: '5:4'", "N:M sparsity needs 1 <= N <= M, got 5:4"),
    ("weight_pattern: nm", "weight_pattern 'nm' needs weight_sparsity"),
    ("weight_pattern: block, block: 5", "block 5 does not divide the 16 x 8 weight matrix"),
    ("block: 0", "block"),
    ("weight_pattern: diagonal", "weight_pattern"),
    ("weight_bits: 0", "weight_bits"),
    ("index_bits: 0", "index_bits"),
    ("operands: [1, 2]", "operands"),
    ("operands: missing.npz", "operands: payload file .*missing.npz not found"),
])
def test_bad_layer_fields_name_file_layer_and_field(tmp_path, entry, message, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(f"name: bad\nlayers:\n  - {{name: a, type: gemm, m: 4, k: 16, n: 8, {entry}}}\n")
    with pytest.raises(InputError, match=message) as info:
        load_workload(path)
    assert str(path) in str(info.value)
    assert main(["storage", "--workload", str(path), "--format", "csr"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == len(info.value.problems) and "Traceback" not in err


def test_corrupt_payload_through_the_cli_is_one_line(tmp_path, capsys):
    (tmp_path / "p.npz").write_bytes(b"garbage")
    (tmp_path / "w.yaml").write_text("name: w\nlayers:\n  - {name: a, type: gemm, m: 4, k: 16, n: 8, "
                                     "operands: p.npz}\n")
    assert main(["storage", "--workload", str(tmp_path / "w.yaml"), "--format", "csr"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a readable .npz archive" in err


def test_zip_with_a_non_npy_member_is_refused(tmp_path):
    path = tmp_path / "odd.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("weights.npy", b"not an npy header")
    with pytest.raises(InputError, match="not a readable .npz archive"):
        layer_operands(gemm(payload=str(path)))


def test_hand_made_operands_keep_their_tensors_and_hashes():
    from accel_sim.foundations.workload.operands import LayerOperands
    w, x = np.ones((2, 3), np.float32), np.zeros((1, 2), np.float32)
    ops = LayerOperands(w, x, "w1", "x1")
    assert ops.weights is w and ops.inputs is x and ops.hashes == {"weight_hash": "w1", "input_hash": "x1"}
    with pytest.raises(TypeError, match="needs a layer"):
        LayerOperands(w, x)
    with pytest.raises(TypeError, match="not both"):
        LayerOperands(w, layer=gemm())


@pytest.mark.parametrize("layer", [gemm(k=300, n=70, density=0.04), gemm(k=64, n=33, density=0.5, seed=3),
                                   conv(density=0.1), conv(density=0.3, seed=5), gemm(k=10, n=7, density=0.001)])
@pytest.mark.parametrize("chunk, sample", [(1 << 22, 1 << 16), (257, 1 << 16), (64, 1)])
def test_weights_drawn_chunk_by_chunk_are_the_full_draw_pruned(monkeypatch, layer, chunk, sample):
    """The chunked generator (_pruned_nonzeros: chunks of the same random stream, candidates only)
    keeps the entries _magnitude_pruned keeps of the whole draw, with the same values; a one-entry
    sample's bound can fail its check (it does on one layer here): the draw is then made again
    without one. The operands' weight_nonzeros and the weights made from them are those bits, read
    in either order."""
    import accel_sim.foundations.workload.operands as operands
    monkeypatch.setattr(operands, "_DRAW_CHUNK", chunk)
    monkeypatch.setattr(operands, "_SAMPLE", sample)
    shape = weight_shape(layer)
    draw = np.random.default_rng(operands._seed(layer, operands._WEIGHT_STREAM)).standard_normal(shape, np.float32)
    expected = operands._magnitude_pruned(layer, draw)
    index, values = operands._pruned_nonzeros(layer, shape)
    assert np.array_equal(index, np.flatnonzero(expected)) and values.tobytes() == expected.ravel()[index].tobytes()
    _cached_operands.cache_clear()
    first = layer_operands(layer)
    found = first.weight_nonzeros   # before the weights: no full-size tensor
    assert "weights" not in first.__dict__ and first.weights.tobytes() == expected.tobytes()
    _cached_operands.cache_clear()
    second = layer_operands(layer)
    assert second.weights.tobytes() == expected.tobytes()   # weights first, then their non-zeros
    assert all(np.array_equal(a, b) for a, b in zip(second.weight_nonzeros, found))
    _cached_operands.cache_clear()


def test_the_chunked_draw_leaves_drawn_zeros_to_the_full_pruning(monkeypatch):
    """A threshold at or below _DRAWN_ZERO (drawn zeros could be kept): _pruned_nonzeros declines and
    the weights come from _magnitude_pruned of the whole draw."""
    import accel_sim.foundations.workload.operands as operands
    layer = gemm(k=40, n=30, density=0.5)
    monkeypatch.setattr(operands, "_DRAWN_ZERO", np.float32(100.0))
    assert operands._pruned_nonzeros(layer, weight_shape(layer)) is None
    draw = np.random.default_rng(operands._seed(layer, operands._WEIGHT_STREAM)).standard_normal((40, 30), np.float32)
    assert operands._generated_weights(layer, (40, 30)).tobytes() == operands._magnitude_pruned(layer, draw).tobytes()


def test_equal_specs_share_their_tensors_within_a_process(monkeypatch):
    """Two layers whose weights have the same spec (they differ in their inputs only) get the same read-only
    tensor, drawn once; after cache_clear (as a new process) it is drawn again, the same bits."""
    import accel_sim.foundations.workload.operands as operands
    first, second = gemm(density=0.7, input_density=0.5), gemm(density=0.7, input_density=0.2)
    assert weight_spec(first) == weight_spec(second) and first != second
    made, real = [], operands._generated_weights
    monkeypatch.setattr(operands, "_generated_weights", lambda *a: made.append(1) or real(*a))
    _cached_operands.cache_clear()
    weights = layer_operands(first).weights
    assert layer_operands(second).weights is weights and made == [1] and not weights.flags.writeable
    _cached_operands.cache_clear()
    assert layer_operands(second).weights.tobytes() == weights.tobytes() and made == [1, 1]
    _cached_operands.cache_clear()
