"""Language detection from a file name (extension table; no content sniffing)."""

from __future__ import annotations

from pathlib import PurePosixPath

__all__ = ["EXTENSIONS", "detect_language"]

#: file extension -> language name (the names ``tree_sitter_languages.get_parser`` understands).
EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".java": "java",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".rb": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".scala": "scala",
}


def detect_language(path: str) -> str | None:
    """The language of ``path`` by extension (``"python"``, ``"java"``, ...), ``None`` if unknown."""
    return EXTENSIONS.get(PurePosixPath(path).suffix.lower())
