"""What every miner returns: clusters of similar code fragments."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ...errors import InputError


class PatternKind(enum.Enum):
    """Which miner found a cluster."""

    CLONE = "clone"              # tree-sitter subtrees equal after normalising names and literals
    NEAR_DUPLICATE = "near_duplicate"  # simhash of line windows within a Hamming distance
    COOCCURRENCE = "cooccurrence"      # lines sharing a frequent word sequence (PrefixSpan)


@dataclass(frozen=True)
class Fragment:
    """A span of one file: ``text == file_text[start:end]`` (character offsets)."""

    path: str
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Cluster:
    """Fragments that instantiate one recurring pattern (at least two)."""

    kind: PatternKind
    fragments: tuple[Fragment, ...]
    key: str = ""

    def __post_init__(self) -> None:
        if len(self.fragments) < 2:
            raise InputError(f"a cluster needs at least two fragments, got {len(self.fragments)}")
