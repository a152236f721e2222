"""Threads of the numeric libraries, where their default costs more than it gives."""
from __future__ import annotations

import contextlib

def single_threaded_blas() -> contextlib.AbstractContextManager:
    """One BLAS thread: the matrices here are tiny, and BLAS threads waking for each one cost
    more than the product (measured 4x slower on a busy 2-core machine). Results do not depend on it."""
    try:
        from threadpoolctl import threadpool_limits  # installed with scikit-learn
    except ImportError:  # pragma: no cover
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")
