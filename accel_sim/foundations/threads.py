"""Threads of the numeric libraries, where their default costs more than it gives."""
from __future__ import annotations

import contextlib
import functools
import sys


@functools.lru_cache(maxsize=1)
def _controller(modules: int):
    try:
        from threadpoolctl import ThreadpoolController  # installed with scikit-learn
    except ImportError:  # pragma: no cover
        return None
    return ThreadpoolController()


def _blas_controller():
    """threadpoolctl's view of the process's thread pools (None without threadpoolctl), found again only when
    modules were imported since (a module may load a BLAS): finding the loaded libraries costs ~2 ms (it walks
    every shared object), which every layer's operands paid."""
    return _controller(len(sys.modules))


def single_threaded_blas() -> contextlib.AbstractContextManager:
    """One BLAS thread: the matrices here are tiny, and BLAS threads waking for each one cost
    more than the product (measured 4x slower on a busy 2-core machine). Results do not depend on it."""
    controller = _blas_controller()
    if controller is None:  # pragma: no cover
        return contextlib.nullcontext()
    return controller.limit(limits=1, user_api="blas")
