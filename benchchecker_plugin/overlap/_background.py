"""A real-text background corpus built offline, for the controlled overlap evaluation.

Sources, in the order they are interleaved (one document from each in turn, so a small budget
still samples every source present):

==============  ==========================================================================
``stdlib``      Python's own standard library sources (``sysconfig`` ``stdlib`` path, minus
                ``site-packages``): always present.
``python-doc``  Debian ``python3.X-doc``: the reStructuredText sources of the HTML manual.
``linux-doc``   Debian ``linux-doc-X``: the kernel's ``Documentation/`` (gzipped rst/txt).
``gcide``       Debian ``dict-gcide``: the Collaborative International Dictionary of English.
``wordnet``     Debian ``wordnet-base``: WordNet's glosses (100 per document).
==============  ==========================================================================

A source that is not installed is skipped and named in :attr:`BackgroundStats.missing`.
Documents are at most :data:`DOC_CHARS` characters (longer files are cut at paragraph breaks);
the stream stops once ``max_bytes`` characters have been produced. Files are read in sorted order:
the same machine gives the same corpus.
"""

from __future__ import annotations

import gzip
import sysconfig
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

DOC_CHARS = 20_000
SOURCES = ("stdlib", "python-doc", "linux-doc", "gcide", "wordnet")
_GLOSSES_PER_DOC = 100


@dataclass(frozen=True)
class Document:
    source: str
    doc_id: str
    text: str


@dataclass
class BackgroundStats:
    """What the stream produced per source (documents, characters) and which sources were absent."""

    documents: dict[str, int] = field(default_factory=dict)
    chars: dict[str, int] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    roots: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {"documents": dict(self.documents), "chars": dict(self.chars),
                "total_documents": sum(self.documents.values()),
                "total_chars": sum(self.chars.values()), "missing": list(self.missing),
                "roots": dict(self.roots)}


def _first(pattern_root: Path, pattern: str) -> Path | None:
    found = sorted(pattern_root.glob(pattern)) if pattern_root.is_dir() else []
    return found[-1] if found else None


def default_roots() -> dict[str, Path | None]:
    """Where each source lives on this machine (``None``: not installed)."""
    doc = Path("/usr/share/doc")
    py = _first(doc, "python3*-doc/html/_sources")
    linux = _first(doc, "linux-doc-*/Documentation")
    gcide = Path("/usr/share/dictd/gcide.dict.dz")
    wordnet = Path("/usr/share/wordnet")
    return {"stdlib": Path(sysconfig.get_paths()["stdlib"]), "python-doc": py, "linux-doc": linux,
            "gcide": gcide if gcide.is_file() else None,
            "wordnet": wordnet if (wordnet / "data.noun").is_file() else None}


def _chunks(text: str, limit: int = DOC_CHARS) -> Iterator[str]:
    """``text`` in pieces of at most ``limit`` characters, cut at a paragraph (else line) break."""
    while len(text) > limit:
        cut = text.rfind("\n\n", 0, limit)
        if cut < limit // 4:
            cut = text.rfind("\n", 0, limit)
        if cut < limit // 4:
            cut = limit
        yield text[:cut]
        text = text[cut:].lstrip("\n")
    if text.strip():
        yield text


def _read(path: Path) -> str | None:
    try:
        if path.suffix in (".gz", ".dz"):
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                return fh.read()
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, EOFError):
        return None   # an unreadable file is not text for the background: left out


def _files(root: Path, patterns: tuple[str, ...], skip: str | None = None) -> Iterator[Path]:
    for pattern in patterns:
        for p in sorted(root.rglob(pattern)):
            if p.is_file() and not p.is_symlink() and not (skip and skip in p.parts):
                yield p


def _from_files(name: str, root: Path, patterns: tuple[str, ...],
                skip: str | None = None) -> Iterator[Document]:
    for path in _files(root, patterns, skip):
        text = _read(path)
        if text is None:
            continue
        rel = path.relative_to(root).as_posix()
        for k, chunk in enumerate(_chunks(text)):
            yield Document(name, f"{rel}#{k}", chunk)


def _gcide(path: Path) -> Iterator[Document]:
    buf: list[str] = []
    size = k = 0
    with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            buf.append(line)
            size += len(line)
            if size >= DOC_CHARS // 2 and not line.strip():
                yield Document("gcide", f"{path.name}#{k}", "".join(buf))
                buf, size, k = [], 0, k + 1
    if buf:
        yield Document("gcide", f"{path.name}#{k}", "".join(buf))


def _wordnet(root: Path) -> Iterator[Document]:
    for part in ("noun", "verb", "adj", "adv"):
        path = root / f"data.{part}"
        if not path.is_file():
            continue
        glosses: list[str] = []
        k = 0
        with path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("  ") or " | " not in line:   # the licence header
                    continue
                glosses.append(line.split(" | ", 1)[1].strip())
                if len(glosses) == _GLOSSES_PER_DOC:
                    yield Document("wordnet", f"data.{part}#{k}", "\n".join(glosses))
                    glosses, k = [], k + 1
        if glosses:
            yield Document("wordnet", f"data.{part}#{k}", "\n".join(glosses))


def _source(name: str, root: Path) -> Iterator[Document]:
    if name == "stdlib":
        return _from_files(name, root, ("*.py",), skip="site-packages")
    if name == "python-doc":
        return _from_files(name, root, ("*.txt",))
    if name == "linux-doc":
        return _from_files(name, root, ("*.rst.gz", "*.txt.gz", "*.rst", "*.txt"))
    if name == "gcide":
        return _gcide(root)
    return _wordnet(root)


def iter_background(max_bytes: float, stats: BackgroundStats | None = None, *,
                    roots: Mapping[str, Path | None] | None = None) -> Iterator[Document]:
    """Documents of every installed source, interleaved, until ``max_bytes`` characters; ``stats``
    (when given) is filled as the stream goes."""
    stats = stats if stats is not None else BackgroundStats()
    where = dict(default_roots() if roots is None else roots)
    streams: list[tuple[str, Iterator[Document]]] = []
    for name in SOURCES:
        root = where.get(name)
        if root is None or not Path(root).exists():
            stats.missing.append(name)
            continue
        stats.roots[name] = str(root)
        stats.documents[name] = stats.chars[name] = 0
        streams.append((name, _source(name, Path(root))))
    total = 0
    while streams and total < max_bytes:
        for name, stream in list(streams):
            doc = next(stream, None)
            if doc is None:
                streams.remove((name, stream))
                continue
            stats.documents[name] += 1
            stats.chars[name] += len(doc.text)
            total += len(doc.text)
            yield doc
            if total >= max_bytes:
                return
