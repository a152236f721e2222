"""Hot loops compiled by numba where it is installed.

A model writes such a loop once, in the plain-Python form numba compiles, and keeps a numpy path for machines
without numba; tests run the compiled loop, the loop as plain Python and the numpy path and compare them. The
compiled code is cached on disk (``cache=True``), so later processes load it instead of compiling it again: for
that the loop must be a module-level function, never one built at run time.
"""
from __future__ import annotations

import functools
from typing import Callable


@functools.cache
def compiled_loop(function: Callable) -> Callable | None:
    """``function`` compiled by numba (cached on disk, releasing the GIL), or None when numba is not installed."""
    try:
        from numba import njit
    except ImportError:   # pragma: no cover - depends on the environment
        return None
    return njit(cache=True, nogil=True)(function)


def _identity(value):
    return value


def warm_up() -> None:
    """Load numba and initialise its compiler target (about 0.6 s of CPU, paid by each process on its first compiled
    loop) in this process: processes forked afterwards (``reproduce all``'s workers) inherit it instead of each
    paying it again. Nothing without numba."""
    loop = compiled_loop(_identity)
    if loop is not None:
        loop(0)
