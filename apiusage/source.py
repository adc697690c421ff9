"""One scanned file's text, split into lines as editors number them."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path


@dataclass
class SourceText:
    path: Path
    text: str
    lines: list[str] = field(init=False)

    def __post_init__(self) -> None:
        # split on "\n" only: str.splitlines() also breaks on form feeds and U+2028, which editors do not count
        self.lines = [line.removesuffix("\r") for line in self.text.split("\n")]

    @cached_property
    def _line_starts(self) -> list[int]:
        return [0, *(match.end() for match in re.finditer("\n", self.text))]

    def line_number(self, offset: int) -> int:
        """1-based line of a character offset."""
        return bisect.bisect_right(self._line_starts, offset)
