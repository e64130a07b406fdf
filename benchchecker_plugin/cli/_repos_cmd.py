"""``benchchecker repos``: the git clones that the Stage II command reads (``repos fetch``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import InputError, RepositoryError
from ..instances import load_instances
from ..repos import DEFAULT_SOURCE
from ._options import instances_options

if TYPE_CHECKING:
    from ..instances import BugInstance


@click.group("repos")
def repos() -> None:
    """Clones of the repositories benchmark instances name (for patch-presence --repos-dir)."""


@repos.command("fetch")
@instances_options
@click.option("--into", type=click.Path(file_okay=False, path_type=Path), required=True, metavar="DIR",
              help="Folder of the clones, one DIR/owner__name per repository (created if needed); "
                   "give it to patch-presence as --repos-dir.")
@click.option("--source", "template", default=DEFAULT_SOURCE, show_default=True,
              metavar="TEMPLATE",
              help="Where to clone from: a URL or path with {owner}, {name}, {repo} (owner/name) "
                   "and {dir} (owner__name), e.g. file:///mirrors/{dir}.git.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Repositories cloned at once (threads).")
@click.option("--update", is_flag=True,
              help="Also 'git fetch' repositories already there (new commits, the remote's default "
                   "branch); without it they are skipped.")
@click.option("--dry-run", is_flag=True,
              help="List what would be cloned, updated or skipped (with --from-releases: the "
                   "releases that would be downloaded, read from the index listing); change nothing.")
@click.option("--from-releases", "packages", multiple=True, metavar="PACKAGE",
              help="Instead of cloning, store the released sdists of PACKAGE (repeatable) as release "
                   "snapshots in DIR/owner__name.releases (one commit per release, dated with its "
                   "exact upload time). PACKAGE is matched to the instances' repository by name "
                   "(django -> django/django), or give OWNER/NAME=PACKAGE.")
@click.option("--cutoffs", "cutoffs_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              default=None, metavar="FILE",
              help="With --from-releases: fetch only the releases these model cutoffs need (the one "
                   "at each cutoff and the next, for --lag-margin) plus the instances' stand-in "
                   "bases; without it every sdist of the package.")
@click.option("--index-url", default=None, metavar="URL",
              help="With --from-releases: the simple index (PEP 691 JSON) to read; default: the "
                   "one pip reads (PIP_INDEX_URL, pip's index-url, else PyPI). Its pages may point "
                   "only to https:// (or, for an http:// index, its own host; for a file:// index, "
                   "files inside its folder).")
@click.option("--download-deadline", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="SECONDS", help="With --from-releases: the most one request (an index page, an "
                                      "sdist) may take in all, however slowly it trickles  [default: 600]")
@click.option("--max-unpacked-mib", type=click.IntRange(min=1), default=None, metavar="MIB",
              help="With --from-releases: refuse an sdist that unpacks to more than this (or whose "
                   "download is larger)  [default: 1024]")
@click.option("--max-unpack-ratio", type=click.FloatRange(min=1), default=None, metavar="RATIO",
              help="With --from-releases: refuse an sdist that unpacks to more than RATIO times its "
                   "size, beyond its first MiB (a compression bomb)  [default: 200]")
def fetch(source: str, fmt: str, into: Path, template: str, jobs: int, update: bool, dry_run: bool,
          packages: tuple[str, ...], cutoffs_file: Path | None, index_url: str | None,
          download_deadline: float | None, max_unpacked_mib: int | None, max_unpack_ratio: float | None) -> None:
    """Clone every repository the instances name, with its full history, into DIR/owner__name.

    Clones are full (every commit, branch and tag; no working files: --no-checkout), never
    shallow or blob-less: Stage II reads old commits offline. A clone is written to a hidden
    DIR/.owner__name.partial-* folder and renamed only once git succeeded and the clone checks
    out, so a killed run never leaves a half-written clone under the real name; the next run
    removes the leftovers and clones again. A folder already at DIR/owner__name is skipped when
    it is a valid full clone (--update fetches into it); a git repository of the same remote
    that misses history (shallow, no commit) is fetched into; anything else fails, naming it,
    and is left as it is: a folder in the way is never deleted nor moved aside.
    One line per repository on stdout; a failing one (bad name, git error) is reported with
    git's message on stderr, the others go on, and the exit code is 4. A warning names base
    commits of the instances that a clone does not hold.

    \b
    Example:
      benchchecker repos fetch --instances swebench_verified.jsonl --into repos/ --jobs 4
      benchchecker patch-presence --instances swebench_verified.jsonl --repos-dir repos/ \\
          --cutoff 2023-04-30 -o stage2.jsonl
    """
    from ..repos import FetchStatus, fetch_repos

    instances = load_instances(source, fmt)
    if packages:
        _fetch_releases(instances, packages, into, cutoffs_file, index_url,
                        (download_deadline, max_unpacked_mib, max_unpack_ratio), dry_run=dry_run)
        return
    if cutoffs_file is not None or index_url is not None or \
            (download_deadline, max_unpacked_mib, max_unpack_ratio) != (None, None, None):
        raise click.UsageError("--cutoffs, --index-url, --download-deadline, --max-unpacked-mib and "
                               "--max-unpack-ratio go with --from-releases")
    commits: dict[str, set[str]] = {}
    for inst in instances:
        commits.setdefault(inst.repo, set()).add(inst.base_commit)
    results = fetch_repos([i.repo for i in instances], into, source=template, jobs=jobs, update=update,
                          dry_run=dry_run, commits=commits)
    for res in results:
        if res.failed:
            click.echo(f"failed {res.repo}: {res.detail}", err=True)
            continue
        detail = f"  ({res.detail})" if res.detail else ""
        took = f" in {res.seconds:.1f} s" if res.status in (FetchStatus.CLONED, FetchStatus.UPDATED) else ""
        click.echo(f"{res.status.value:<12} {res.repo} -> {res.path}{took}{detail}")
        if res.missing_commits:
            shown = ", ".join(c[:12] for c in res.missing_commits[:5])
            more = f" and {len(res.missing_commits) - 5} more" if len(res.missing_commits) > 5 else ""
            click.echo(f"warning: {res.repo}: {len(res.missing_commits)} base commit(s) not in the clone: "
                       f"{shown}{more} (Stage II fails for their instances)", err=True)
    counts = Counter(r.status.value for r in results)
    click.echo(f"{len(results)} repositories: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())),
               err=True)
    failed = [r.repo for r in results if r.failed]
    if failed:
        raise RepositoryError(f"{len(failed)} of {len(results)} repositories could not be fetched: "
                              f"{', '.join(failed)}")


def _package_repo(package: str, repos: list[str]) -> tuple[str, str]:
    """``(package, owner/name)`` for ``--from-releases`` PACKAGE or OWNER/NAME=PACKAGE."""
    if "=" in package:
        repo, _, name = package.partition("=")
        return name.strip(), repo.strip()
    norm = package.lower().replace("_", "-")
    hits = [r for r in repos if r.partition("/")[2].lower().replace("_", "-") == norm]
    if len(hits) != 1:
        found = "no repository" if not hits else f"{len(hits)} repositories ({', '.join(hits)})"
        raise InputError(f"--from-releases {package!r}: {found} of the instances is named "
                         f"{package!r}; give OWNER/NAME={package}")
    return package, hits[0]


def _fetch_releases(instances: Sequence[BugInstance], packages: tuple[str, ...], into: Path,
                    cutoffs_file: Path | None, index_url: str | None,
                    caps: tuple[float | None, int | None, float | None], *, dry_run: bool = False) -> None:

    from ..errors import BenchcheckerError
    from ..repos import ExtractLimits, SimpleIndex, fetch_releases, plan_releases

    deadline, mib, ratio = caps
    default = ExtractLimits()
    limits = ExtractLimits(max_bytes=mib << 20 if mib else default.max_bytes, max_ratio=ratio or default.max_ratio)

    cutoffs = None
    if cutoffs_file is not None:
        from ..cutoffs_file import read_cutoffs

        cutoffs = list(dict.fromkeys(read_cutoffs(cutoffs_file).cutoffs.values()))
    index = SimpleIndex(index_url, deadline=deadline or 600.0, max_bytes=mib << 20 if mib else 1 << 30)
    repos = sorted({i.repo for i in instances})
    failed = []
    downloads = 0
    for package in packages:
        try:
            name, repo = _package_repo(package, repos)
            # without --cutoffs every sdist: any cutoff can then be asked
            bases = [(inst.extra.get("version"), inst.created) for inst in instances
                     if inst.repo == repo] if cutoffs is not None else []
            if dry_run:
                plan = plan_releases(name, repo, into, index=index, cutoffs=cutoffs, bases=bases)
            else:
                res = fetch_releases(name, repo, into, index=index, cutoffs=cutoffs, bases=bases, limits=limits)
        except (BenchcheckerError, OSError) as exc:
            click.echo(f"failed {package}: {exc}", err=True)
            failed.append(package)
            continue
        if dry_run:
            downloads += len(plan.fetch)
            listed = f" ({', '.join(plan.fetch)})" if plan.fetch else ""
            click.echo(f"would fetch  {plan.repo} <- {plan.package}: {len(plan.fetch)} to download{listed}, "
                       f"{len(plan.kept)} kept of {plan.listed} on the index -> {plan.path}")
            continue
        click.echo(f"releases     {res.repo} <- {res.package}: {len(res.added)} added, {len(res.kept)} kept "
                   f"of {res.listed} on the index -> {res.path}")
    if dry_run:
        click.echo(f"dry run: {downloads} sdist(s) would be downloaded for {len(packages) - len(failed)} "
                   "package(s); only the index listing was read, nothing was downloaded or written", err=True)
    if failed:
        raise RepositoryError(f"{len(failed)} of {len(packages)} package(s) could not be fetched: "
                              f"{', '.join(failed)}")
