"""Member and non-member repository sets built from installed packages' source trees.

Each "repository" is one installed pure-Python package: its ``.py`` files (tests and files under
``min_file_bytes`` skipped), taken in path order until ``repo_bytes`` characters (the last file cut
at a line end), so every repository has the same size and all are real, third-party code none of
us wrote. Candidates are shuffled with ``seed`` and alternately assigned to members and non-members,
so the two sets are disjoint and alike in size and style.
"""

from __future__ import annotations

import importlib.util
import random
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataError
from ..stage1 import SourceFile, read_sources

# Pure-Python packages that this project's dependencies install; sorted.
CANDIDATE_PACKAGES = (
    "absl", "aiohttp", "annotated_types", "anyio", "attr", "certifi", "charset_normalizer", "click",
    "colorama", "dateutil", "dill", "evaluate", "filelock", "frozenlist", "fsspec", "h11", "httpcore",
    "httpx", "huggingface_hub", "jinja2", "joblib", "jsonlines", "jsonschema",
    "markdown_it", "markupsafe", "mbstrdecoder", "mdurl", "more_itertools", "multidict", "nltk",
    "packaging", "pathvalidate", "pluggy", "portalocker", "prefixspan", "psutil", "pygments",
    "pytablewriter", "pytz", "requests", "rich", "rouge_score", "sacrebleu", "semver", "shortuuid",
    "sqlitedict", "tabledata", "tabulate", "tcolorpy", "tenacity", "threadpoolctl", "tqdm",
    "typepy", "typing_inspection", "unidiff", "urllib3", "word2number", "xxhash", "yaml", "yarl",
    "zstandard",
)


@dataclass(frozen=True)
class Repo:
    """One repository of the evaluation: a name and its (possibly truncated) files."""

    name: str
    files: tuple[SourceFile, ...]

    @property
    def n_chars(self) -> int:
        return sum(len(f.text) for f in self.files)


@dataclass(frozen=True)
class Corpus:
    """Disjoint member and non-member repositories."""

    members: tuple[Repo, ...]
    nonmembers: tuple[Repo, ...]


def package_repo(package: str, repo_bytes: int, *, min_file_bytes: int = 1500) -> Repo | None:
    """The first ``repo_bytes`` characters of ``package``'s source tree, or ``None`` when the
    package is not installed, is not a folder, or has too little code."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return folder_repo(package, Path(list(spec.submodule_search_locations)[0]), repo_bytes,
                       min_file_bytes=min_file_bytes)


def folder_repo(name: str, root: Path, repo_bytes: int, *, min_file_bytes: int = 1500) -> Repo | None:
    """The first ``repo_bytes`` characters of the Python files under ``root`` (same rules as
    :func:`package_repo`), or ``None`` when there is too little code."""
    files = [f for f in read_sources(root)
             if len(f.text) >= min_file_bytes and "test" not in f.path.lower()
             and not f.text.lstrip().startswith(("# This file was generated", "# Generated"))]
    out, total = [], 0
    for f in files:
        if total >= repo_bytes:
            break
        text = f.text
        if total + len(text) > repo_bytes:
            cut = text.rfind("\n", 0, repo_bytes - total)
            text = text[:cut + 1] if cut > 0 else ""
        if text:
            out.append(SourceFile(f"{name}/{f.path}", text))
            total += len(text)
    if total < 0.9 * repo_bytes:
        return None
    return Repo(name, tuple(out))


def build_corpus(n_per_set: int, repo_bytes: int, *, seed: int = 0,
                 candidates: tuple[str, ...] = CANDIDATE_PACKAGES) -> Corpus:
    """``n_per_set`` member and ``n_per_set`` non-member repositories of ``repo_bytes`` each."""
    names = list(candidates)
    random.Random(seed).shuffle(names)
    repos: list[Repo] = []
    for name in names:
        repo = package_repo(name, repo_bytes)
        if repo is not None:
            repos.append(repo)
        if len(repos) == 2 * n_per_set:
            break
    if len(repos) < 2 * n_per_set:
        raise DataError(f"only {len(repos)} installed packages have {repo_bytes} bytes of source; "
                        f"need {2 * n_per_set} for {n_per_set} members and non-members")
    return Corpus(tuple(repos[0::2]), tuple(repos[1::2]))
