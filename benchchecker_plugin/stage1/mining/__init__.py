"""Pattern miners of Stage I: clones, near-duplicate text, co-occurrence, and their templates."""

from .clones import find_clones
from .cooccurrence import find_cooccurrences
from .fragments import Cluster, Fragment, PatternKind
from .simhash import find_near_duplicates, hamming, simhash
from .templates import SLOT, Template, code_tokens, extract_template

__all__ = [
    "Cluster",
    "Fragment",
    "PatternKind",
    "SLOT",
    "Template",
    "code_tokens",
    "extract_template",
    "find_clones",
    "find_cooccurrences",
    "find_near_duplicates",
    "hamming",
    "simhash",
]
