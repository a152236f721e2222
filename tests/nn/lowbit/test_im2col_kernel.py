"""The compiled col2im loop (numba) gives the numpy lines' sums bit for bit (im2col: numpy either way): 1 and 16
channels (both numpy forms), padding 0 and 1, signed zeros and NaN, float32 and float64."""
import numpy as np
import pytest

from accel_sim.systems.nn.lowbit import im2col as module

pytest.importorskip("numba")


@pytest.mark.parametrize("trial", range(8))
def test_compiled_im2col_and_col2im_equal_numpy(trial, monkeypatch):
    rng = np.random.default_rng(trial)
    dtype = np.float32 if trial % 2 else np.float64
    channels, padding = (1, 16)[trial % 4 // 2], (0, 1)[trial % 3 % 2]
    x = (rng.standard_normal((3, 6, 5, channels)) * 10.0 ** rng.integers(-3, 3)).astype(dtype)
    x.flat[:3] = [-0.0, np.nan, 0.0]
    kernel = 3
    rows = (3 * (6 + 2 * padding - 2) * (5 + 2 * padding - 2), kernel * kernel * channels)
    cols = (rng.standard_normal(rows) * 10.0 ** rng.integers(-3, 3, rows)).astype(dtype)
    cols.flat[:2] = [-0.0, np.inf]
    compiled = module.im2col(x, kernel, padding), module.col2im(cols, x.shape, kernel, padding)
    monkeypatch.setattr(module, "compiled", lambda: None)
    plain = module.im2col(x, kernel, padding), module.col2im(cols, x.shape, kernel, padding)
    for a, b in zip(compiled, plain):
        assert a.dtype == b.dtype and a.shape == b.shape and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


@pytest.mark.parametrize("channels", [1, 3, 4, 16])
@pytest.mark.parametrize("padding", [0, 1])
def test_im2col_rows_are_the_receptive_fields(channels, padding):
    """Each row is a receptive field in (kernel row, kernel column, channel) order: both im2col forms (a copy per
    kernel offset below 4 channels, one copy of the window view above) equal numpy's sliding windows."""
    x = np.random.default_rng(channels).standard_normal((2, 6, 5, channels)).astype(np.float32)
    padded = np.pad(x, ((0, 0), (padding, padding), (padding, padding), (0, 0)))
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(1, 2)).transpose(0, 1, 2, 4, 5, 3)
    assert module.im2col(x, 3, padding).tobytes() == np.ascontiguousarray(windows).reshape(-1, 9 * channels).tobytes()
