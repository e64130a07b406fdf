"""``benchchecker repos``: the git clones that the Stage II command reads (``repos fetch``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from ..errors import RepositoryError
from ..instances import load_instances
from ..repos.fetch import DEFAULT_SOURCE
from .options import instances_options

__all__ = ["repos"]


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
              help="List what would be cloned, updated or skipped; change nothing.")
def fetch(source: str, fmt: str, into: Path, template: str, jobs: int, update: bool, dry_run: bool) -> None:
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
