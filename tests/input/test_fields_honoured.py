"""Nothing in a workload or config is ignored in silence: every layer-entry field x every family is
either honoured (it changes the layer, its operands or its result) or reported (a warning or an error
naming the field); conflicting fields and another family's config section are reported too."""
import dataclasses
import warnings

import numpy as np
import pytest

from accel_sim.cli.main import main
from accel_sim.foundations.errors import IgnoredInputWarning, InputError
from accel_sim.foundations.workload.operands import layer_operands
from accel_sim.foundations.workload.spec import FIELD_KINDS, LayerEntry
from accel_sim.pipeline.catalog import FAMILIES, load_arch
from accel_sim.pipeline.honoured import REQUEST_FIELDS
from accel_sim.pipeline.simulate import simulate_layer

# One shipped config per family (arch_configs/).
FAMILY_ARCH = {"systolic": "tpu_like_128x128_ws", "eie": "eie", "scnn": "scnn", "pe_array": "pe_array",
               "tensor_core": "ampere_a100", "cnvlutin": "cnvlutin", "dlu": "dlu", "simt": "ampere_a100_simt",
               "lowbit": "lowbit", "eyeriss": "eyeriss_v1", "bitserial": "bitserial_dnnsim_stripes",
               "eyeriss_v2": "eyeriss_v2"}
# A value other than the default for each request field.
REQUEST_VALUES = {"precision": "int8", "quantized_weight_bits": 4, "activation_bits": 5, "quant_group_size": 8,
                  "quant_scale_bits": 16, "max_pool": "2/2"}
CONV_REQUESTS = ("max_pool",)   # a conv layer's fields: refused on a fully connected layer
# Request fields that only mean something with another one set (on both the plain and the asking layer).
REQUEST_NEEDS = {"quant_scale_bits": {"quant_group_size": 8}}
FC = dict(name="fc", type="fc", in_features=64, out_features=16, batch=4)
CONV = dict(name="c", type="conv", in_h=8, in_w=8, in_channels=8, out_channels=8, kernel=3, padding=1)


def _layer(**fields):
    return LayerEntry(**fields).to_layer()


def _arch_layer(family):  # EIE runs fc layers only; the others run both
    return {**FC} if family == "eie" else {**CONV}


def test_every_layer_field_has_one_kind():
    kinds = [name for names in FIELD_KINDS.values() for name in names]
    assert sorted(kinds) == sorted(f.name for f in dataclasses.fields(LayerEntry))
    assert FAMILY_ARCH.keys() == FAMILIES.keys()
    assert tuple(FIELD_KINDS["request"]) == REQUEST_FIELDS


@pytest.mark.parametrize("field,base,value", [
    ("in_h", CONV, 10), ("in_w", CONV, 10), ("in_channels", CONV, 4), ("out_channels", CONV, 4),
    ("kernel", CONV, 1), ("kernel_h", {**CONV, "kernel": None, "kernel_h": 3, "kernel_w": 3}, 1),
    ("kernel_w", {**CONV, "kernel": None, "kernel_h": 3, "kernel_w": 3}, 1), ("stride", CONV, 2),
    ("stride_h", CONV, 2), ("stride_w", CONV, 2), ("padding", CONV, 0), ("pad_top", {**CONV, "padding": None}, 1),
    ("pad_bottom", {**CONV, "padding": None}, 1), ("pad_left", {**CONV, "padding": None}, 1),
    ("pad_right", {**CONV, "padding": None}, 1), ("groups", CONV, 2), ("batch", CONV, 2),
    ("in_features", FC, 32), ("out_features", FC, 8), ("name", FC, "other"),
    ("m", {"name": "g", "type": "gemm", "m": 2, "k": 8, "n": 4}, 3),
    ("k", {"name": "g", "type": "gemm", "m": 2, "k": 8, "n": 4}, 3),
    ("n", {"name": "g", "type": "gemm", "m": 2, "k": 8, "n": 4}, 3),
    ("instances", {"name": "b", "type": "batched_gemm", "instances": 2, "m": 2, "k": 8, "n": 4}, 3),
    ("op", {"name": "v", "type": "vector", "op": "softmax", "m": 2, "n": 4}, "gelu"),
    ("launches", {"name": "v", "type": "vector", "op": "softmax", "m": 2, "n": 4}, False),
    ("type", {"name": "g", "type": "gemm", "m": 2, "k": 8, "n": 4}, "batched_gemm"),
])
def test_shape_fields_change_the_layer(field, base, value):
    changed = {**base, field: value}
    if field == "type":
        changed = {**base, "type": value, "instances": 2}
    assert _layer(**base) != _layer(**changed)


@pytest.mark.parametrize("field,value", [
    ("weight_density", 0.25), ("input_density", 0.25), ("weight_sparsity", "2:4"), ("weight_pattern", "channel"),
    ("activation_pattern", "clustered"), ("block", 2), ("seed", 7)])
def test_operand_fields_change_the_operands(field, value):
    base = {**FC, "weight_density": 0.5, "input_density": 0.5, "weight_pattern": "block"}
    if field == "weight_sparsity":
        base = {**FC, "weight_density": 1.0}
    if field == "weight_pattern":
        base = {**FC, "weight_density": 0.5}
    before, after = layer_operands(_layer(**base)), layer_operands(_layer(**{**base, field: value}))
    assert (not np.array_equal(before.weights, after.weights)) or (not np.array_equal(before.inputs, after.inputs))


def test_operand_payload_changes_the_operands(tmp_path):
    np.savez(tmp_path / "w.npz", weights=np.ones((64, 16), dtype=np.float32))
    loaded = layer_operands(LayerEntry(**FC, operands="w.npz").to_layer(base_dir=str(tmp_path)))
    assert np.array_equal(loaded.weights, np.ones((64, 16), dtype=np.float32))


@pytest.mark.parametrize("family", sorted(FAMILY_ARCH))
def test_sparse_operands_change_the_result_or_every_mac_is_computed(family):
    """A family either reacts to zero weights and activations, or computes every MAC (macs_skipped 0 in
    the table: the zeros are computed, which is the model's answer, not an ignored field)."""
    arch, base = load_arch(FAMILY_ARCH[family]), _arch_layer(family)
    dense = simulate_layer(arch, _layer(**base)).result
    sparse = simulate_layer(arch, _layer(**base, weight_density=0.25, input_density=0.25)).result
    assert sparse.cycles != dense.cycles or sparse.macs_skipped != dense.macs_skipped \
        or sparse.actions != dense.actions or sparse.macs_issued == sparse.macs_dense


@pytest.mark.parametrize("family", sorted(FAMILY_ARCH))
@pytest.mark.parametrize("field", REQUEST_FIELDS)
def test_request_fields_are_honoured_or_reported(family, field):
    arch, base = load_arch(FAMILY_ARCH[family]), {**_arch_layer(family), **REQUEST_NEEDS.get(field, {})}
    if field in CONV_REQUESTS and base["type"] != "conv":
        with pytest.raises(ValueError, match=field):
            _layer(**base, **{field: REQUEST_VALUES[field]})
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IgnoredInputWarning)   # the needed field's own report
        plain = simulate_layer(arch, _layer(**base)).result
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            asked = simulate_layer(arch, _layer(**base, **{field: REQUEST_VALUES[field]})).result
        except InputError as err:  # refused, naming the field
            assert field in str(err)
            return
    reported = [w for w in caught if issubclass(w.category, IgnoredInputWarning) and field in str(w.message)]
    honoured = asked != plain
    assert honoured != bool(reported), f"{family} x {field}: honoured {honoured}, reported {len(reported)}"


def _workload(tmp_path, line):
    path = tmp_path / "w.yaml"
    path.write_text(f"name: t\nlayers:\n  - {line}\n")
    return str(path)


def test_kernel_conflicting_with_kernel_h_is_an_error(tmp_path, capsys):
    path = _workload(tmp_path, "{name: c, type: conv, in_h: 8, in_w: 8, in_channels: 4, out_channels: 4, "
                               "kernel: 3, kernel_h: 5}")
    assert main(["run", "--workload", path]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "kernel: 3 conflicts with kernel_h: 5" in err[0] and "layers[0] (c)" in err[0]
    same = _workload(tmp_path, "{name: c, type: conv, in_h: 8, in_w: 8, in_channels: 4, out_channels: 4, "
                               "kernel: 3, kernel_h: 3, stride: 1, stride_w: 1}")
    assert main(["run", "--workload", same]) == 0


def test_set_on_another_familys_section_is_an_error(capsys):
    assert main(["run", "--set", "eie.n_pes=4"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "eie.n_pes" in err[0] and "not used" in err[0] and "systolic" in err[0]


def test_another_familys_section_in_the_file_is_a_warning(tmp_path, capsys):
    config = tmp_path / "a.yaml"
    config.write_text("extends: tpu_like_128x128_ws\nname: mixed\neie: {n_pes: 4}\n")
    tiny = _workload(tmp_path, "{name: f, type: fc, in_features: 16, out_features: 8}")
    assert main(["run", "--arch", str(config), "--workload", tiny]) == 0
    err = capsys.readouterr().err
    assert "accel-sim: warning:" in err and "eie is not used" in err and "a.yaml" in err
    assert main(["run", "--arch", str(config), "--workload", tiny, "--allow-ignored"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_precision_on_the_systolic_family_is_a_warning_that_can_be_silenced(tmp_path, capsys):
    tiny = _workload(tmp_path, "{name: f, type: fc, in_features: 16, out_features: 8, precision: int4}")
    assert main(["run", "--workload", tiny]) == 0
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("accel-sim: warning: workload field precision: int4")
    assert "systolic" in err[0] and "lowbit" in err[0]
    assert main(["run", "--workload", tiny, "--allow-ignored"]) == 0
    assert capsys.readouterr().err.strip() == ""


def test_sweep_axis_on_another_familys_section_is_an_error(tmp_path):
    from accel_sim.pipeline.sweep import sweep_from_mapping
    with pytest.raises(InputError, match="eie section is not used"):
        sweep_from_mapping({"name": "s", "arch": "scalesim_32x32_ws", "workload": "tiny_conv",
                            "axes": {"eie.n_pes": [4, 8]}})


@pytest.mark.parametrize("field", FIELD_KINDS["storage"])
def test_storage_fields_size_the_stored_weights(field):
    """weight_bits and index_bits describe the model as stored: `accel-sim storage` reads them (for the
    relative-index format, where a layer's index width applies)."""
    from accel_sim.foundations.workload.storage import StorageOptions, layer_storage_row
    options = StorageOptions(format="eie")
    plain = layer_storage_row(_layer(**FC, weight_density=0.3), options)
    sized = layer_storage_row(_layer(**FC, weight_density=0.3, **{field: 3}), options)
    assert sized != plain
