"""The ``(who, what, when)`` log every block keeps when given a list (SimPy's own tests assert
logs like these): ``who`` is the agent or transfer, ``what`` the action (``"push"``, ``"read
start"``), ``when`` the cycle."""
from __future__ import annotations

from typing import NamedTuple


class LogEntry(NamedTuple):
    who: str
    what: str
    when: int
