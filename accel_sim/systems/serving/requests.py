"""The requests a serving run receives: arrival time, prompt tokens, output tokens.

From a seeded distribution (:func:`generate`: Poisson arrivals at ``rate`` requests/s, or all at time 0
with an infinite rate; lengths fixed, uniform on [mean/2, 3 mean/2], or exponential with that mean, at
least 1 token) or from a CSV trace (:func:`read_trace`: columns ``arrival_s``, ``prompt_tokens``,
``output_tokens``). A bad value is an :class:`InputError` naming the field.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from accel_sim.foundations.errors import InputError

TRACE_COLUMNS = ("arrival_s", "prompt_tokens", "output_tokens")
LENGTHS = ("fixed", "uniform", "exponential")


@dataclass(frozen=True)
class Request:
    index: int
    arrival_s: float
    prompt_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class RequestSource:
    """A seeded distribution of requests (the ``accel-sim serve`` options of the same names)."""

    requests: int = 100
    rate: float = math.inf           # requests per second (Poisson); inf: all arrive at time 0
    prompt_tokens: int = 512         # mean prompt length
    output_tokens: int = 128         # mean output length
    lengths: str = "uniform"
    seed: int = 0

    def __post_init__(self) -> None:
        for option, value in (("--requests", self.requests), ("--prompt-tokens", self.prompt_tokens),
                              ("--output-tokens", self.output_tokens)):
            if value < 1:
                raise InputError.single(option, str(value), "must be >= 1")
        if not self.rate > 0:
            raise InputError.single("--rate", str(self.rate), "must be > 0 requests per second (inf: all at once)")
        if self.lengths not in LENGTHS:
            raise InputError.single("--lengths", self.lengths, f"expected one of {', '.join(LENGTHS)}")


def _lengths(rng: np.random.Generator, mean: int, count: int, kind: str) -> np.ndarray:
    if kind == "fixed":
        return np.full(count, mean, dtype=np.int64)
    if kind == "uniform":
        return rng.integers(max(1, mean // 2), mean + mean // 2 + 1, size=count)
    return np.maximum(1, np.rint(rng.exponential(mean, size=count))).astype(np.int64)


def generate(source: RequestSource) -> tuple[Request, ...]:
    rng = np.random.default_rng(source.seed)
    gaps = np.zeros(source.requests) if math.isinf(source.rate) else rng.exponential(1 / source.rate, source.requests)
    arrivals = np.cumsum(gaps) - (gaps[0] if source.requests else 0.0)   # the first request arrives at 0
    prompts = _lengths(rng, source.prompt_tokens, source.requests, source.lengths)
    outputs = _lengths(rng, source.output_tokens, source.requests, source.lengths)
    return tuple(Request(i, float(a), int(p), int(o)) for i, (a, p, o) in enumerate(zip(arrivals, prompts, outputs)))


def read_trace(path: str | Path) -> tuple[Request, ...]:
    """Requests from a CSV with a header naming ``arrival_s``, ``prompt_tokens``, ``output_tokens``
    (other columns are ignored); rows in any order, sorted by arrival."""
    where = str(path)
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
            header = rows[0].keys() if rows else []
    except FileNotFoundError:
        raise InputError.single(where, "", "trace file not found") from None
    missing = [c for c in TRACE_COLUMNS if c not in header]
    if not rows:
        raise InputError.single(where, "", f"no requests (a header {', '.join(TRACE_COLUMNS)} and one row each)")
    if missing:
        raise InputError.single(where, missing[0], f"missing column (a trace needs {', '.join(TRACE_COLUMNS)})")
    requests = []
    for line, row in enumerate(rows, start=2):
        values = []
        for column, kind, least in (("arrival_s", float, 0), ("prompt_tokens", int, 1), ("output_tokens", int, 1)):
            try:
                value = kind(row[column])
            except (TypeError, ValueError):
                raise InputError.single(where, f"line {line}: {column}", f"expected a number, got {row[column]!r}") \
                    from None
            if not value >= least or (kind is float and not math.isfinite(value)):
                raise InputError.single(where, f"line {line}: {column}", f"must be >= {least}, got {row[column]}")
            values.append(value)
        requests.append(values)
    requests.sort(key=lambda r: r[0])
    return tuple(Request(i, float(a), int(p), int(o)) for i, (a, p, o) in enumerate(requests))
