"""Every table and page of a bundle rebuilt from the bundle alone."""

from __future__ import annotations

import os
from pathlib import Path

from ._bundle import copy_bundle, read_bundle
from ._page import render


def rebuild(folder: str | os.PathLike[str], out: str | os.PathLike[str] | None = None, *,
            mde_sims: int | None = None) -> list[Path]:
    """The page of the bundle in ``folder`` written into ``out`` (default: ``folder``), the bundle's
    files copied beside it: nothing but the bundle is read, and the page of a republication is
    this rebuild of what it wrote. ``mde_sims``: simulated worlds per MDE instead of the
    bundle's (0: none, a quick look). Returns the paths written."""
    source = Path(folder)
    target = Path(out) if out is not None else source
    bundle = read_bundle(source)
    copy_bundle(source, target)
    return render(bundle, target, mde_sims=mde_sims)
