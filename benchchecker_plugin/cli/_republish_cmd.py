"""``benchchecker republish``: a leaderboard republished without the instances Stage II flags, as a
bundle (the inputs of every figure) and a page rebuilt from it alone."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..errors import InputError
from ..rescore_options import DEFAULT_N_BOOT, DEFAULT_SEED, MIN_CLEAN, MIN_RESOLVED_CLEAN
from ._outputs import writes_into

if TYPE_CHECKING:   # pandas comes with the library, imported where used: `--help` stays fast
    from ..republish import BoardSource

# = republish.BUNDLE_FILES + republish.PAGE_FILES (tests/cli/test_republish_cmd.py); a copy so
# that `--help` imports nothing heavy
_FILES = ("instances.csv", "flags.csv", "cutoffs.csv", "unscored.csv", "snapshots.csv", "build.json",
          "CHANGELOG.md", "LICENSE-DATA.md", "own_fix_recall.csv", "leaderboard.csv", "summary.csv",
          "sensitivity.csv", "leaderboard.md", "index.html", "README.md")
_PATH = click.Path(exists=True, path_type=Path)
_DIR = click.Path(exists=True, file_okay=False, path_type=Path)


def per_board(values: Sequence[str], boards: Sequence[str], option: str) -> dict[str, str]:
    """``NAME=VALUE`` options as ``{board: value}``; a bare ``VALUE`` is every board's. A name
    that is no board, or a board given twice, is an :class:`InputError` naming the option."""
    out: dict[str, str] = {}
    for value in values:
        name, sep, rest = value.partition("=")
        targets = [name] if sep and name in boards else list(boards)
        if sep and name not in boards and not Path(value).exists():
            raise InputError(f"{option} {value}: no board named {name!r} (boards: {', '.join(boards)})")
        for board in targets:
            if board in out:
                raise InputError(f"{option}: board {board} given twice")
            out[board] = rest if sep and name in boards else value
    return out


def _boards(board: Sequence[str], instances: Sequence[str], tiers: Sequence[str],
            benchmark: Sequence[str], official: Sequence[str], official_board: str) -> list[BoardSource]:
    from ..republish import BoardSource

    if not board:
        raise click.UsageError("give at least one --board NAME=FOLDER (a submissions folder)")
    folders: dict[str, Path] = {}
    for value in board:
        name, sep, folder = value.partition("=")
        if not sep or not name or not folder:
            raise InputError(f"--board {value}: expected NAME=FOLDER")
        if name in folders:
            raise InputError(f"--board {name}: given twice")
        folders[name] = Path(folder)
    names = list(folders)
    given = {opt: per_board(vals, names, opt) for opt, vals in (
        ("--instances", instances), ("--tiers", tiers), ("--benchmark", benchmark),
        ("--official", official))}

    def path(opt: str, name: str) -> Path | None:
        return Path(given[opt][name]) if name in given[opt] else None

    return [BoardSource(name, folders[name], instances=path("--instances", name),
                        tiers=path("--tiers", name), benchmark=given["--benchmark"].get(name),
                        official=path("--official", name), official_board=official_board)
            for name in names]


def _command(ctx: click.Context) -> str:
    """The command line as given (paths shortened to their last part), for the build facts."""
    parts = ["benchchecker republish"]
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name is None or \
                ctx.get_parameter_source(param.name) is not click.core.ParameterSource.COMMANDLINE:
            continue
        value = ctx.params[param.name]
        flag = param.opts[-1] if param.opts[-1].startswith("--") else param.opts[0]
        values = value if isinstance(value, (list, tuple)) else [value]
        if param.is_flag:
            parts.append(flag)
            continue
        for v in values:
            parts.append(f"{flag} {'='.join(_short(p) for p in str(v).split('=', 1))}")
    return " ".join(parts)


def _short(text: str) -> str:
    """A path as ``<its last part>`` (the build facts name no folder of the machine)."""
    return f"<{Path(text).name}>" if os.sep in text and Path(text).exists() else text


@writes_into("out", _FILES)
@click.command()
@click.option("--board", multiple=True, metavar="NAME=FOLDER",
              help="A board's submissions: a folder in the SWE-bench experiments layout "
                   "(evaluation/<split>/<submission>/results/results.json: the split named like the "
                   "board, or its only one) or flat (<submission>/results/results.json, e.g. "
                   "../shared/data/swebench_experiments). Repeat for several boards: they are pooled "
                   "over their shared instances and each is reported with the pool.")
@click.option("--instances", multiple=True, metavar="[NAME=]FILE",
              help="A board's instances (SWE-bench jsonl/json or dataset name, Multi-SWE-bench jsonl "
                   "or folder): the instance list and what Stage II reads. A board folder with its "
                   "own index.json (Multi-SWE-bench's experiments) takes its list from there.")
@click.option("--tiers", multiple=True, metavar="[NAME=]FILE",
              help="Difficulty tiers: a table with a 'difficulty' column, or a Multi-SWE-bench "
                   "annotation workbook (.xlsx, needs openpyxl). Default: the instances' "
                   "difficulty, else one tier.")
@click.option("--benchmark", multiple=True, metavar="[NAME=]BENCH",
              help="swe-bench-verified (its four tiers and the paper's findings), multi-swe-bench "
                   "(easy/medium/hard) or swe-bench (tiers as written). Default: from the tiers "
                   "and the board's name.")
@click.option("--official", multiple=True, metavar="[NAME=]FILE",
              help="The official leaderboards.json: submissions whose resolved count differs from "
                   "it by more than 2% of the instances are not scored; its top 10 is shown.")
@click.option("--official-board", default="Verified", show_default=True,
              help="The board's name in --official (Verified, Lite, Test, ...).")
@click.option("--model-map", type=_PATH, default=None,
              help="CSV submission -> model(s) (';'-separated); a submission it does not name is not "
                   "scored. Default: each submission's metadata.")
@click.option("--cutoffs", type=_PATH, default=None,
              help="The models' training cutoffs (model_cutoffs.csv, a JSON object, or a model map "
                   "with a model_cutoffs column). Default: --model-map.")
@click.option("--cutoff-sources", type=_PATH, default=None,
              help="CSV model,quote,confidence: a quote naming part of a period ('Early 2023') "
                   "narrows the cutoff; confidence 'derived...' marks a lower bound.")
@click.option("--repos-dir", type=_DIR, default=None,
              help="Verdicts from Stage II on these clones (owner__name/); an instance whose "
                   "repository is not here is not covered (left out, not undecided).")
@click.option("--releases-dir", type=_DIR, default=None,
              help="Release snapshots (owner__name.releases/) for the projects without a clone.")
@click.option("--lag-margin", type=click.FloatRange(min=0), default=None, metavar="DAYS",
              help="Release snapshots: the lag correction with this margin.")
@click.option("--stage2-cache", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="DIR", help="Keep the Stage II flags per (instance, cutoff) here: what is there "
                                  "is read, what is missing computed and added.")
@click.option("--state", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Keep Stage II's tasks here as each finishes (patch-presence --state): a run killed "
                   "inside a repository, rerun with the same DIR, takes the finished tasks from there "
                   "and writes the same bundle.")
@click.option("--cached-only", is_flag=True,
              help="Compute nothing: repositories missing from --stage2-cache are not covered.")
@click.option("--extra-dates", multiple=True, metavar="YYYY-MM-DD",
              help="Also run Stage II at these dates (what clean rests on uses them).")
@click.option("--no-own-fix", is_flag=True,
              help="Do not read each instance at its own fix snapshot (no recall check, no fix dates).")
@click.option("--similarity", type=click.Choice(["difflib+minilm", "difflib", "minilm", "exact"]),
              default="difflib+minilm", show_default=True,
              help="Stage II's line similarity (patch-presence --similarity).")
@click.option("--fetch", is_flag=True, help="Clone the missing repositories into --repos-dir first.")
@click.option("--source", "fetch_source", default=None, help="URL template for --fetch.")
@click.option("--flags", type=_PATH, default=None,
              help="Verdicts from Stage II flags made before (patch-presence --cutoffs): the "
                   "instances with a flag are covered.")
@click.option("--from-bundle", type=_DIR, default=None,
              help="Verdicts from an earlier bundle (its flags.csv and cutoffs.csv).")
@click.option("--release-repos", multiple=True, metavar="OWNER/NAME",
              help="With --from-bundle: the repositories whose snapshots were release sdists.")
@click.option("--repos", multiple=True, metavar="OWNER/NAME", help="Only these repositories (a trial).")
@click.option("--submissions", multiple=True, metavar="NAME", help="Only these submissions (a trial).")
@click.option("--resamples", type=click.IntRange(min=0), default=DEFAULT_N_BOOT, show_default=True,
              help="Cluster-bootstrap resamples of every drop.")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True)
@click.option("--min-clean", type=click.IntRange(min=0), default=MIN_CLEAN, show_default=True,
              help="Fewer clean instances: 'too few'.")
@click.option("--min-resolved-clean", type=click.IntRange(min=0), default=MIN_RESOLVED_CLEAN,
              show_default=True, help="Fewer resolved clean instances: 'too few'.")
@click.option("--mde-sims", type=click.IntRange(min=0), default=100, show_default=True,
              help="Simulated worlds per minimum detectable drop (0: none, a quick look).")
@click.option("--mde-resamples", type=click.IntRange(min=1), default=200, show_default=True,
              help="Bootstrap resamples in each simulated world.")
@click.option("--band-floor", default=None, metavar="YYYY-MM-DD",
              help="The earliest plausible cutoff of a model without a published one (default: the "
                   "latest pull-request creation date among the instances).")
@click.option("--title", default=None, help="The page's title (default: the benchmark's name).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the bundle and its page.")
@click.option("--rebuild", type=_DIR, default=None, metavar="BUNDLE",
              help="Rebuild every table and page from the bundle in BUNDLE alone, into --out "
                   "(default: in place); nothing else is read.")
def republish(board: tuple[str, ...], instances: tuple[str, ...], tiers: tuple[str, ...],
              benchmark: tuple[str, ...], official: tuple[str, ...], official_board: str,
              out: Path | None, rebuild: Path | None, **options: Any) -> None:
    """Republish a leaderboard without the instances Stage II flags, for any board.

    From a board's submissions (--board), its instances and tiers, a model map and the models'
    training cutoffs, writes to --out the bundle (instances.csv: one row per instance and scored
    submission, with its verdict, why-clean kind and snapshot; flags.csv, snapshots.csv,
    cutoffs.csv, unscored.csv, own_fix_recall.csv, build.json, CHANGELOG.md, LICENSE-DATA.md) and
    the page rebuilt from it alone (leaderboard.csv, summary.csv, sensitivity.csv,
    leaderboard.md, index.html, README.md): every drop pooled within tiers with its
    cluster-bootstrap interval and its minimum detectable drop, why each clean instance is clean,
    the same data read other ways, and the submissions without a published cutoff scored over
    their plausible interval. Verdicts come from Stage II on clones (--repos-dir), from Stage II
    flags made before (--flags) or from an earlier bundle (--from-bundle).

    \b
    Examples:
      benchchecker republish --board verified=../shared/data/swebench_experiments \\
          --instances ../shared/data/swebench_verified/swebench_verified_composite.jsonl \\
          --model-map ../shared/data/model_cutoffs/submission_models.csv \\
          --repos-dir clones/ --stage2-cache s2/ --out published/verified
      benchchecker republish --rebuild published/verified --out /tmp/check
    """
    from ..republish import RepublishConfig
    from ..republish import rebuild as rebuild_bundle
    from ..republish import republish as run

    if rebuild is not None:
        paths = rebuild_bundle(rebuild, out or rebuild)
        click.echo(f"rebuilt {', '.join(dict.fromkeys(p.name for p in paths))} from {rebuild}", err=True)
        return
    if out is None:
        raise click.UsageError("give --out DIR (or --rebuild BUNDLE)")
    sources = _boards(board, instances, tiers, benchmark, official, official_board)
    if options.get("state") is not None:
        from ._outputs import check_outputs_outside_inputs

        check_outputs_outside_inputs([("--state", options["state"])], [
            ("--repos-dir", options.get("repos_dir")), ("--releases-dir", options.get("releases_dir")),
            ("--out", out), *(("--board", s.submissions) for s in sources)])
    tuples = {k: tuple(v) for k, v in options.items() if isinstance(v, tuple)}
    config = RepublishConfig(
        boards=tuple(sources), own_fix=not options.pop("no_own_fix"),
        repos=tuples.pop("repos") or None, submissions=tuples.pop("submissions") or None,
        command=_command(click.get_current_context()),
        **{**{k: v for k, v in options.items() if not isinstance(v, tuple)}, **tuples})
    bundle = run(config, out, say=lambda line: click.echo(line, err=True))
    published, banded = bundle.published["submission"].nunique(), len(bundle.facts.bands)
    click.echo(f"{bundle.facts.stage2}; of {bundle.facts.n_submissions} submissions {published} scored at "
               f"a published cutoff, {banded} over a plausible interval, {len(bundle.unscored)} not "
               f"scored; wrote the bundle and its page into {out}")
