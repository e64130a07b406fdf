"""Pattern miners of Stage I: clones, near-duplicate text, co-occurrence, and their templates."""

from ._clones import find_clones
from ._cooccurrence import find_cooccurrences
from ._fragments import Cluster, Fragment, PatternKind
from ._simhash import find_near_duplicates, hamming, simhash
from ._templates import SLOT, Template, code_tokens, extract_template

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
