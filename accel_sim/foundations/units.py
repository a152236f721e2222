"""Human-readable quantities, parsed once at the input boundary.

Inside the simulator everything is a plain number in a base unit: bytes, bits, hertz,
cycles, bytes per cycle, picojoules. Config files may write ``"64 KiB"``, ``"800 MHz"``,
``"16 B/cycle"`` or a bare number (taken in the base unit).
"""
from __future__ import annotations

import math
import re

# kind -> {suffix: factor to the base unit}
_SIZE = {
    "b": 1 / 8, "bit": 1 / 8, "bits": 1 / 8,
    "B": 1, "byte": 1, "bytes": 1,
    "kB": 1e3, "KB": 1024, "KiB": 1024,
    "MB": 1024**2, "MiB": 1024**2,
    "GB": 1024**3, "GiB": 1024**3,
}
_FREQUENCY = {"Hz": 1, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9}
_ENERGY = {"fJ": 1e-3, "pJ": 1, "nJ": 1e3, "uJ": 1e6}
_TIME = {"ps": 1e-12, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
_AREA = {"um^2": 1, "mm2": 1e6, "mm^2": 1e6}
# link rates are decimal (a "GB/s" of PCIe or InfiniBand is 1e9 bytes), unlike memory sizes
_RATE = {"kB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "Gb/s": 1e9 / 8, "Mb/s": 1e6 / 8}
_POWER = {"nW": 1e-9, "uW": 1e-6, "mW": 1e-3, "W": 1, "kW": 1e3, "MW": 1e6}

KINDS: dict[str, tuple[str, dict[str, float]]] = {
    # kind: (base unit name, suffix table)
    "size": ("B", _SIZE),
    "frequency": ("Hz", _FREQUENCY),
    "energy": ("pJ", _ENERGY),
    "time": ("s", _TIME),
    "area": ("um2", _AREA),
    "cycles": ("cycles", {"cycle": 1, "cycles": 1}),
    "words_per_cycle": ("words/cycle", {"word/cycle": 1, "words/cycle": 1}),
    "rate": ("B/s", _RATE),
    "power": ("W", _POWER),
}
_BANDWIDTH_TIME = {"cycle": None, "s": 1.0}
_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*?)\s*$")


class UnitError(ValueError):
    """A quantity string could not be read as the expected unit."""


def _split(text: str) -> tuple[float, str]:
    m = _QUANTITY.match(text)
    if not m:
        raise UnitError(f"expected a number with a unit, got {text!r}")
    return float(m.group(1)), m.group(2)


def parse(value: object, kind: str) -> float:
    """Return ``value`` in the base unit of ``kind``.

    Bare numbers are taken in the base unit. Raises :class:`UnitError` with a message
    that lists the accepted suffixes.
    """
    base, table = KINDS[kind]
    if isinstance(value, bool):
        raise UnitError(f"expected a {kind} in {base}, got a boolean")
    if isinstance(value, (int, float)):
        number, suffix = float(value), ""
    elif isinstance(value, str):
        number, suffix = _split(value)
    else:
        raise UnitError(f"expected a {kind} like '{_example(kind)}', got {type(value).__name__}")
    if suffix in ("", base):
        factor = 1.0
    elif suffix in table:
        factor = table[suffix]
    else:
        raise UnitError(
            f"unknown unit {suffix!r} for a {kind}; use one of {', '.join(sorted(set(table) | {base}))}"
        )
    result = number * factor
    if not math.isfinite(result):
        raise UnitError(f"expected a finite {kind}, got {value!r}")
    return result


def parse_bandwidth(value: object, clock_hz: float | None = None) -> float:
    """Bandwidth in bytes per cycle. ``"16 B/cycle"``, ``"25.6 GB/s"`` (needs the clock)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise UnitError(f"expected a finite bandwidth, got {value!r}")
        return float(value)
    if not isinstance(value, str) or "/" not in value:
        raise UnitError(f"expected a bandwidth like '16 B/cycle' or '25.6 GB/s', got {value!r}")
    amount, per = value.rsplit("/", 1)
    per = per.strip()
    size = parse(amount, "size")
    if per == "cycle":
        return size
    if per == "s":
        if clock_hz is None:
            raise UnitError("a bandwidth in bytes per second needs the clock frequency")
        return size / clock_hz
    raise UnitError(f"bandwidth must be per 'cycle' or per 's', got per {per!r}")


def _example(kind: str) -> str:
    return {"size": "64 KiB", "frequency": "800 MHz", "energy": "5 pJ", "time": "10 ns",
            "cycles": "100 cycles", "words_per_cycle": "10 words/cycle", "area": "0.43 mm2",
            "rate": "15.75 GB/s", "power": "250 W"}[kind]
