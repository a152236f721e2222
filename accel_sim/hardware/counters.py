"""Access counters with declared units, shared by the memory components."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class AccessCounter:
    """Words (of ``word_bits`` bits) read from and written to one component."""

    name: str
    word_bits: int
    reads: int = 0   # words
    writes: int = 0  # words

    def read(self, words: int) -> None:
        if words < 0:
            raise ValueError(f"{self.name}: negative read of {words} words")
        self.reads += words

    def write(self, words: int) -> None:
        if words < 0:
            raise ValueError(f"{self.name}: negative write of {words} words")
        self.writes += words

    @property
    def read_bits(self) -> int:
        return self.reads * self.word_bits

    @property
    def write_bits(self) -> int:
        return self.writes * self.word_bits
