"""EIE's one-pass encoder gives exactly the per-PE slices of the slice-by-slice reference."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from accel_sim.foundations.compress.formats.eie import EIEInterleavedCSC, _encode_slice


@settings(max_examples=80, deadline=None)
@given(rows=st.integers(0, 30), cols=st.integers(1, 30), density=st.floats(0, 1), n_pes=st.integers(1, 9),
       index_bits=st.integers(1, 4), layout=st.sampled_from(["C", "F", "strided"]), seed=st.integers(0, 2**16),
       dtype=st.sampled_from([np.float32, np.float64, np.int16]))
def test_one_pass_encoder_equals_slice_by_slice(rows, cols, density, n_pes, index_bits, layout, seed, dtype):
    rng = np.random.default_rng(seed)
    matrix = (rng.standard_normal((rows * 2, cols)) * 10 * (rng.random((rows * 2, cols)) < density)).astype(dtype)
    matrix = matrix[::2] if layout == "strided" else matrix[:rows]
    if layout == "F":
        matrix = np.asfortranarray(matrix)
    encoded = EIEInterleavedCSC.from_dense(matrix, n_pes=n_pes, index_bits=index_bits, pointer_bits=None)
    encoded.check()
    max_run = 2**index_bits - 1
    for pe, got in enumerate(encoded.pes):
        want = _encode_slice(matrix[pe::n_pes, :], max_run)
        for name in ("values", "rel_index", "col_ptr"):
            assert np.array_equal(getattr(got, name), getattr(want, name)) and \
                getattr(got, name).dtype == getattr(want, name).dtype
    assert np.array_equal(encoded.to_dense(), matrix)


def test_a_layer_encoded_from_its_non_zeros_equals_its_dense_encoding():
    # deep-compression encodes each layer from the operands' non-zeros (stored_nonzeros, from_nonzeros), never
    # making the dense matrix: the same format as from_dense of the stored matrix, for a GEMM and a conv layer.
    from accel_sim.foundations.workload.layer import ConvLayer, GemmLayer
    from accel_sim.foundations.workload.storage import stored_matrix, stored_nonzeros
    layers = (GemmLayer("g", m=1, k=70, n=40, weight_density=0.1, input_density=1.0),
              ConvLayer("c", in_h=5, in_w=5, in_channels=6, out_channels=12, kernel_h=3, kernel_w=3,
                        weight_density=0.2, input_density=1.0))
    for layer in layers:
        dense = EIEInterleavedCSC.from_dense(stored_matrix(layer), n_pes=1, index_bits=3, pointer_bits=None)
        shape, columns, rows, values = stored_nonzeros(layer)
        sparse = EIEInterleavedCSC.from_nonzeros(shape, columns, rows, values, n_pes=1, index_bits=3, pointer_bits=None)
        assert (sparse.shape, sparse.pointer_bits) == (dense.shape, dense.pointer_bits)
        for name in ("values", "rel_index", "col_ptr"):
            got, want = getattr(sparse.pes[0], name), getattr(dense.pes[0], name)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
