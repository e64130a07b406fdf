"""Language detection from a file name (extension table; no content sniffing).

``.h`` is ambiguous between C and C++ and is C here: C++ headers are common, but a C file read
with the C++ grammar breaks on C++ keywords used as names, while stage II's C spec falls back to
the C++ grammar by itself when that parses a header with fewer errors
(:mod:`benchchecker_plugin.stage2._grammars.c_family`).
"""

from __future__ import annotations

from pathlib import PurePosixPath

#: file extension -> language name (the names ``tree_sitter_languages.get_parser`` understands).
EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".java": "java",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp", ".hxx": "cpp",
    ".ipp": "cpp", ".inl": "cpp", ".tpp": "cpp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".scala": "scala",
}


def detect_language(path: str) -> str | None:
    """The language of ``path`` by extension (``"python"``, ``"java"``, ...), ``None`` if unknown."""
    return EXTENSIONS.get(PurePosixPath(path).suffix.lower())
