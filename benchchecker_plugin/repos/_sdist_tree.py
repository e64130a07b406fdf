"""An sdist's files as a git tree, byte for byte: unpacked under :class:`~.archive.ExtractLimits`,
stored with no conversion.

``git add`` would apply the archive's own ``.gitattributes`` (``text eol=crlf``, ``ident``,
``filter=``) and the user's ``core.autocrlf`` when storing: the repository's
``info/attributes`` (which git reads before any ``.gitattributes``) unsets every conversion and
the call overrides the configuration, so the stored blobs are the sdist's bytes. Entries named
``.git`` cannot be stored by git (and a vendored ``.git`` folder or ``gitdir:`` file is a
repository's internals, not source): they are left out, and the release's commit names them.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tarfile
import zipfile
from pathlib import Path

from ..atomic import write_text_atomic
from ..errors import DataError
from ._archive import ExtractLimits, extract_sdist
from ._git import git


def unpack_sdist(archive: Path, dest: Path, label: str, limits: ExtractLimits) -> tuple[Path, list[str]]:
    """Extract the sdist ``archive`` into ``dest`` (under ``limits``); the folder holding its files
    (top folder stripped) and the ``.git`` entries left out of it (git cannot store a path named
    ``.git``, and a vendored ``.git`` folder or file is a repository's internals, not source).
    :class:`DataError` naming the file when it is not a readable archive or passes a cap."""
    try:
        extract_sdist(archive, dest, limits)
    except DataError as exc:
        raise DataError(f"{label}: {exc}") from None
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
        raise DataError(f"{label}: sdist {archive.name} is corrupt or not an archive ({exc})") from None
    tops = [p for p in dest.iterdir()]
    top = tops[0] if len(tops) == 1 and tops[0].is_dir() and not tops[0].is_symlink() else dest
    return top, _drop_git_entries(top)


def _drop_git_entries(top: Path) -> list[str]:
    """Remove every entry named ``.git`` (any case) under ``top``; their paths, sorted."""
    dropped = []
    for here, dirs, files in os.walk(top):
        for name in [*dirs, *files]:
            if name.casefold() == ".git":
                entry = Path(here) / name
                dropped.append(entry.relative_to(top).as_posix())
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
        dirs[:] = [d for d in dirs if d.casefold() != ".git"]
    return sorted(dropped)


#: git reads attributes from $GIT_DIR/info/attributes first: this turns off every conversion an
#: sdist's own .gitattributes (or the user's core.attributesFile) could ask for when storing
_NO_CONVERSION = "* -text -eol -crlf -ident -filter -working-tree-encoding\n"
_STORE_CONFIG = ["-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.symlinks=true",
                 "-c", "core.fileMode=true"]


def store_tree(repo: Path, tree_dir: Path, scratch: Path) -> str:
    """Write the files of ``tree_dir`` as objects of ``repo``, byte for byte; the tree id."""
    info = Path(git(repo, ["rev-parse", "--git-dir"]).decode().strip())
    info = (info if info.is_absolute() else repo / info) / "info"
    info.mkdir(parents=True, exist_ok=True)
    if not (info / "attributes").is_file() or (info / "attributes").read_text() != _NO_CONVERSION:
        write_text_atomic(info / "attributes", _NO_CONVERSION)
    index = scratch / f"index-{secrets.token_hex(4)}"
    env = {"GIT_INDEX_FILE": str(index), "GIT_WORK_TREE": str(tree_dir)}
    # -f: an sdist's own .gitignore must not drop files
    git(repo, [*_STORE_CONFIG, "add", "-A", "-f", "."], env=env)
    tree = git(repo, ["write-tree"], env=env).decode().strip()
    index.unlink(missing_ok=True)
    return tree
