"""``--contamination-detect`` for lm-eval: TS-Guessing on the documents the run evaluates, asked
through the run's own lm-eval ``LM`` object.

Which tasks have a detector is decided from their documents and dataset, not from task names:

- **MMLU**: the dataset is MMLU (``cais/mmlu`` and its copies, or a task whose metadata says
  ``benchmark: mmlu``, like the shipped ``mmlu_local_*``) and the documents have MMLU's fields
  (``question``, four ``choices``, integer ``answer``). Every ``mmlu_*`` subtask and group of
  lm-eval qualifies; MMLU-Pro, MMMLU and other datasets do not. Instance id
  ``<subject>/<doc_id>``, as ``benchchecker ts-guess`` numbers MMLU.
- **TruthfulQA**: the dataset is TruthfulQA (``truthfulqa/truthful_qa``) and the documents are
  the ``generation`` config's (``best_answer``, ``incorrect_answers``: ``truthfulqa_gen``) or
  the ``multiple_choice`` config's (``mc1_targets``: ``truthfulqa_mc1``/``mc2``; the options are
  the mc1 choices, the first one correct). Instance id ``<doc_id>`` (the row of the question).
- **the project's ``ts_guessing_*`` tasks**: each document carries its probe (``probe_json``).
- **any other ``multiple_choice`` task** (ARC, HellaSwag, PIQA, Winogrande, OpenBookQA, SciQ,
  MMLU-Pro, your own): read through its own definition by :mod:`._mc_task` (benchmark = the task's
  name, instance id = the doc id). A task that is not multiple-choice, whose documents cannot be
  read, or where no option can be hidden is one line saying why, and runs unfiltered.

Each MMLU / TruthfulQA document becomes the :class:`~benchchecker_plugin.tsguessing.BenchmarkItem`
``benchchecker ts-guess`` builds for it, and goes through the same filters, masking, prompt and
scoring, so the flags equal ``ts-guess`` on the same items and model. The prompts are sent with
lm-eval's ``generate_until`` request (greedy, no stop string, 32 new tokens), so every lm-eval
backend answers (hf, vllm, local-completions, openai-completions, ...).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.tsguessing import BenchmarkItem, Probe, prepare_probes

from ..common import FilterOptions, echo
from ..detection import Detection, DetectOptions, ts_guess_probes
from ._mc_task import TaskReading, check_unique_id, read_mc_task

#: Hub datasets holding MMLU's questions (lm-eval's ``mmlu_*`` tasks read the first two).
MMLU_DATASETS = frozenset({"cais/mmlu", "hails/mmlu_no_train", "lighteval/mmlu", "tasksource/mmlu"})
TRUTHFULQA_DATASETS = frozenset({"truthfulqa/truthful_qa", "truthful_qa"})


def _first(docs: Sequence[Any]) -> Mapping[str, Any] | None:
    return docs[0] if docs and isinstance(docs[0], Mapping) else None


def _is_mmlu_doc(doc: Mapping[str, Any]) -> bool:
    choices = doc.get("choices")
    return (isinstance(doc.get("question"), str) and isinstance(choices, (list, tuple))
            and len(choices) == 4 and isinstance(doc.get("answer"), int)
            and not isinstance(doc.get("answer"), bool))


def _is_truthfulqa_doc(doc: Mapping[str, Any]) -> bool:
    return isinstance(doc.get("question"), str) and (
        isinstance(doc.get("mc1_targets"), Mapping)
        or ("best_answer" in doc and isinstance(doc.get("incorrect_answers"), (list, tuple))))


def benchmark_of_task(task: Any, docs: Sequence[Any]) -> str | None:
    """``"mmlu"``, ``"truthfulqa"`` or ``None`` (no detector) for one lm-eval task object."""
    doc = _first(docs)
    if doc is None:
        return None
    if "probe_json" in doc:
        return str(json.loads(doc["probe_json"])["benchmark"])
    config = getattr(task, "config", None)
    path = str(getattr(config, "dataset_path", None) or "").lower()
    declared = str((getattr(config, "metadata", None) or {}).get("benchmark") or "").lower()
    if (path in MMLU_DATASETS or declared == "mmlu") and _is_mmlu_doc(doc):
        return "mmlu"
    if (path in TRUTHFULQA_DATASETS or declared == "truthfulqa") and _is_truthfulqa_doc(doc):
        return "truthfulqa"
    return None


def _subject(task_name: str, task: Any, doc: Mapping[str, Any]) -> str:
    if isinstance(doc.get("subject"), str) and doc["subject"]:
        return str(doc["subject"])
    name = getattr(getattr(task, "config", None), "dataset_name", None)
    if isinstance(name, str) and name and name != "all":
        return name
    return task_name[len("mmlu_"):] if task_name.startswith("mmlu_") else task_name


def item_of(benchmark: str, doc_id: int, doc: Mapping[str, Any], *, task_name: str,
            task: Any = None) -> BenchmarkItem:
    """The TS-Guessing item of one lm-eval document (see the module docstring)."""
    from benchchecker_plugin.tsguessing import text_sha1

    if benchmark == "mmlu":
        subject = _subject(task_name, task, doc)
        return BenchmarkItem("mmlu", f"{subject}/{doc_id}", doc["question"], tuple(doc["choices"]),
                             int(doc["answer"]), {"subject": subject})
    question = str(doc["question"]).strip()
    meta = {"type": doc.get("type") or "", "category": doc.get("category") or "",
            "source": doc.get("source") or "", "question_sha1": text_sha1(question)}
    if isinstance(doc.get("mc1_targets"), Mapping):
        choices = [str(c) for c in doc["mc1_targets"]["choices"]]
        labels = list(doc["mc1_targets"]["labels"])
        answer = labels.index(1)
        return BenchmarkItem("truthfulqa", str(doc_id), question, tuple(choices), answer, meta)
    options = (str(doc["best_answer"]).strip(),
               *[str(a) for a in doc["incorrect_answers"] if str(a).strip()])
    return BenchmarkItem("truthfulqa", str(doc_id), question, options, 0, meta)


def task_items(name: str, task: Any, docs: Sequence[Any], indices: Sequence[int], *,
               known: str | None = None) -> TaskReading:
    """The items of ``docs[i]`` for ``i`` in ``indices`` (each instance once, run order), as
    ``ts-guess --task`` numbers them: MMLU / TruthfulQA documents (``known``, else recognised by
    :func:`benchmark_of_task`) with those benchmarks' ids, any other ``multiple_choice`` task read
    through its own definition; or why the task has none. A TS-Guessing probe task's documents
    are probes, not items: none."""
    known = known if known is not None else benchmark_of_task(task, docs)
    if known is None:
        return read_mc_task(name, task, docs, indices)
    if len(indices) and "probe_json" in docs[indices[0]]:
        return TaskReading(None, why="its documents are TS-Guessing probes, not benchmark items")
    items: dict[str, BenchmarkItem] = {}
    first: dict[str, int] = {}
    for i in indices:
        it = item_of(known, i, docs[i], task_name=name, task=task)
        check_unique_id(name, it.instance_id, i, first)
        items[it.instance_id] = it
    return TaskReading(known, tuple(items.values()))


def probes_for_run(tasks: Mapping[str, Any], docs: Mapping[str, Sequence[Any]],
                   indices: Mapping[str, Sequence[int]], *, seed: int = 0, hints: bool = True
                   ) -> tuple[dict[str, str | None], list[Probe], dict[str, int], dict[str, str]]:
    """Per task its benchmark (``None``: no detector), the probes for exactly the evaluated
    documents (each instance once, in run order), the items the filters dropped per reason, and
    per task without a detector the one line saying why.

    MMLU and TruthfulQA documents are recognised as those benchmarks (their flags use the
    benchmark's own ids); any other ``multiple_choice`` task is read through its own definition
    (:mod:`._mc_task`; benchmark = the task's name)."""
    benchmarks: dict[str, str | None] = {}
    probes: dict[tuple[str, str, str], Probe] = {}
    dropped: dict[str, int] = {}
    why: dict[str, str] = {}
    for name, task in tasks.items():
        known = benchmark_of_task(task, docs[name])
        chosen = [docs[name][i] for i in indices[name]]
        if known is not None and chosen and "probe_json" in chosen[0]:
            benchmark = known
            made = [Probe.from_dict(json.loads(d["probe_json"])) for d in chosen]
        else:
            reading = task_items(name, task, docs[name], indices[name], known=known)
            if reading.benchmark is None:
                benchmarks[name], why[name] = None, str(reading.why)
                continue
            benchmark, items = reading.benchmark, list(reading.items)
            prep = prepare_probes(items, "multichoice", seed=seed, hints=hints)
            if known is None and items and not prep.probes:
                benchmarks[name], why[name] = None, prep.no_probe_reason()
                continue
            made = list(prep.probes)
            for reason, n in prep.dropped.items():
                dropped[reason.value] = dropped.get(reason.value, 0) + n
        benchmarks[name] = benchmark
        for p in made:
            probes.setdefault((p.benchmark, p.instance_id, p.mode.value), p)
    return benchmarks, list(probes.values()), dropped, why


def local_task_manager(names: Sequence[str], include_path: str | None,
                       metadata: Mapping[str, Any] | None) -> Any:
    """lm-eval's ``TaskManager`` over ``include_path`` alone when it holds every one of ``names``
    (indexing lm-eval's thousands of built-in tasks takes tens of seconds), else ``None``."""
    from lm_eval.tasks import TaskManager

    from ._yaml_includes import refuse_special_yaml

    refuse_special_yaml(include_path)
    if not include_path or not names:
        return None
    local = TaskManager(include_path=include_path, include_defaults=False, metadata=dict(metadata or {}))
    return local if all(local.match_tasks([n]) for n in names) else None


def probes_for_tasks(names: Sequence[str], include_path: str | None = None,
                     metadata: Mapping[str, Any] | None = None, *, seed: int = 0,
                     hints: bool = True
                     ) -> tuple[dict[str, str | None], list[Probe], dict[str, int], dict[str, str]]:
    """:func:`probes_for_run` on every document of lm-eval tasks or groups ``names``, loaded by
    lm-eval's own ``TaskManager`` (``include_path`` as lm-eval's ``--include_path``; only that
    folder is indexed when it holds every name)."""
    tasks, docs, failed = _load_named(names, include_path, metadata)
    benchmarks, probes, dropped, why = probes_for_run(
        tasks, docs, {n: range(len(d)) for n, d in docs.items()}, seed=seed, hints=hints)
    for name, reason in failed.items():
        benchmarks[name], why[name] = None, reason
    return benchmarks, probes, dropped, why


def _load_named(names: Sequence[str], include_path: str | None,
                metadata: Mapping[str, Any] | None
                ) -> tuple[dict[str, Any], dict[str, list[Any]], dict[str, str]]:
    """lm-eval's leaf tasks of ``names``, their documents, and why those that failed to load did
    (an unknown name is one :class:`InputError` line)."""
    from lm_eval.tasks import TaskManager

    manager = (local_task_manager(names, include_path, metadata)
               or TaskManager(include_path=include_path, metadata=dict(metadata or {})))
    unknown = [n for n in names if not manager.match_tasks([n])]
    if unknown:
        from ._yaml_includes import include_cycle

        cycles = [why for why in (include_cycle(n, include_path) for n in unknown) if why]
        if cycles:
            raise InputError(f"--task {', '.join(unknown)}: {'; '.join(cycles)}")
        raise InputError(f"--task {', '.join(unknown)}: no such lm-eval task or group"
                         + (f" (in {include_path} or lm-eval's own tasks)" if include_path else ""))
    tasks, failed = load_each(manager, names)
    return tasks, {name: list(task.eval_docs) for name, task in tasks.items()}, failed


def items_for_tasks(names: Sequence[str], include_path: str | None = None,
                    metadata: Mapping[str, Any] | None = None
                    ) -> tuple[dict[str, str | None], list[BenchmarkItem], dict[str, str]]:
    """Per task its benchmark (``None``: no items), the items of every document of lm-eval tasks
    or groups ``names`` (loaded as :func:`probes_for_tasks` loads them; ids as ``ts-guess --task``
    writes them, no TS-Guessing filter applied), and per task without items the one line why."""
    tasks, docs, failed = _load_named(names, include_path, metadata)
    benchmarks: dict[str, str | None] = {}
    items: dict[tuple[str, str], BenchmarkItem] = {}
    why = dict(failed)
    for name in failed:
        benchmarks[name] = None
    for name, task in tasks.items():
        reading = task_items(name, task, docs[name], range(len(docs[name])))
        benchmarks[name] = reading.benchmark
        if reading.benchmark is None:
            why[name] = str(reading.why)
        for it in reading.items:
            items.setdefault((it.benchmark, it.instance_id), it)
    return benchmarks, list(items.values()), why


#: what a task lm-eval could not fetch from the hub is told (its dataset needs the network)
OFFLINE_HINT = ("; its dataset is on the Hugging Face hub, unreachable here: read a local copy with "
                "--include_path DIR (a task YAML whose dataset_path is a local folder; the shipped "
                "tasks/lm_eval *_local tasks take --metadata '{\"data\": PATH}')")


def exception_line(exc: BaseException, limit: int = 200) -> str:
    """``exc``'s message on one line, cut to ``limit`` characters (``...`` where cut)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def hub_unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from) is the hub being out of reach."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        kinds = {k.__name__ for k in type(seen).__mro__}
        if kinds & {"ConnectionError", "OfflineModeIsEnabled", "LocalEntryNotFoundError"} \
                or "Couldn't reach" in str(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def load_each(manager: Any, names: Sequence[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """lm-eval's leaf tasks of ``names``, each name loaded on its own with its templates in a
    budgeted sandbox (:func:`._compat.compiled_templates`), and ``{name: why}`` of those lm-eval
    could not load: its own error while loading one (a Jinja error, integer choices, a target
    out of range, a YAML including itself) is that task's one line, not the run's end."""
    from benchchecker_plugin.hub_reach import offline_unless_reachable

    from ._compat import compiled_templates

    offline_unless_reachable()   # a hub out of reach: its tasks fail at once, not after retries
    tasks: dict[str, Any] = {}
    failed: dict[str, str] = {}
    for name in names:
        try:
            with compiled_templates():
                loaded = manager.load([name])
        except RecursionError:
            failed[name] = "lm-eval cannot load it: its YAML includes itself (directly or not)"
        except Exception as exc:   # noqa: BLE001 - lm-eval's own error: recorded as this task's line
            failed[name] = f"lm-eval cannot load it ({type(exc).__name__}: {exception_line(exc)})" + \
                (OFFLINE_HINT if hub_unreachable(exc) else "")
        else:
            tasks.update(loaded["tasks"])
    return tasks, failed


class LMEvalTextModel:
    """A :class:`~benchchecker_plugin.models.TextModel` over an lm-eval ``LM``: each prompt is one
    ``generate_until`` request. ``chat`` formats it with the LM's chat template (as lm-eval does
    under ``--apply_chat_template``, with the ``--system_instruction``)."""

    def __init__(self, lm_factory: Callable[[], Any], spec: str, identity: str, *,
                 chat: bool = False, system_instruction: str | None = None) -> None:
        self._factory = lm_factory
        self.spec = spec
        self.cache_identity = identity
        self.chat = chat
        self.system_instruction = system_instruction

    def _format(self, lm: Any, prompt: str) -> str:
        if not self.chat:
            return (self.system_instruction + "\n\n" + prompt) if self.system_instruction else prompt
        history = ([{"role": "system", "content": self.system_instruction}]
                   if self.system_instruction else []) + [{"role": "user", "content": prompt}]
        return str(lm.apply_chat_template(history, add_generation_prompt=True))

    def generate(self, prompts: Sequence[str], params: Any) -> list[Any]:
        from lm_eval.api.instance import Instance

        from benchchecker_plugin.models import Completion

        lm = self._factory()
        kwargs = {"until": list(params.stop), "max_gen_toks": params.max_tokens,
                  "do_sample": params.temperature > 0, "temperature": params.temperature}
        requests = [Instance("generate_until", {}, (self._format(lm, p), dict(kwargs)), i,
                             ("benchchecker_detect", i, 1)) for i, p in enumerate(prompts)]
        texts = lm.generate_until(requests)
        return [Completion(text=str(t)) for t in texts]


def run_model_name(cfg: Any, options: FilterOptions) -> str:
    """The model name detected flags are written under: ``--contamination-model``, else the
    canonical name of the run's model (:func:`benchchecker_plugin.models.lm_eval_model_name`:
    ``hf/<pretrained>``, ``hf/smollm2-135m`` for the exported default model)."""
    from benchchecker_plugin.models import lm_eval_model_name

    return options.model or lm_eval_model_name(cfg.model, cfg.model_args)


#: lm-eval model arguments that say where or how fast a model runs, not what it answers
_RUN_ARGS = frozenset({"batch_size", "max_batch_size", "device", "device_map", "parallelize",
                       "max_memory_per_gpu", "max_cpu_memory", "offload_folder",
                       "trust_remote_code", "num_concurrent", "max_retries", "timeout"})


def _model_args(cfg: Any) -> dict[str, Any]:
    if isinstance(cfg.model_args, Mapping):
        return dict(cfg.model_args)
    from lm_eval.utils import simple_parse_args_string

    return dict(simple_parse_args_string(cfg.model_args or ""))


def answering_identity(cfg: Any) -> str:
    """The response cache's identity of the run's model: the model's one name (as ``ts-guess``
    and Inspect's ``benchchecker/`` provider name it: ``hf/smollm2-135m`` for the exported
    default model, so a run after ``ts-guess`` finds its answers cached), then what changes the
    answers: the other model arguments, the chat template and the system instruction."""
    from benchchecker_plugin.models import lm_eval_model_name

    args = _model_args(cfg)
    name = lm_eval_model_name(cfg.model, args)
    named = "pretrained" if args.get("pretrained") else "model"
    rest = {k: v for k, v in args.items() if k != named and k not in _RUN_ARGS}
    query = [f"{k}={json.dumps(v, default=str) if not isinstance(v, str) else v}"
             for k, v in sorted(rest.items())]
    if cfg.apply_chat_template:
        template = cfg.apply_chat_template
        query.append("chat=1" if template is True or str(template).lower() == "true"
                     else f"chat={template}")
    if cfg.system_instruction:
        query.append(f"system={cfg.system_instruction}")
    return name + ("?" + "&".join(query) if query else "")


def _build_lm(cfg: Any) -> Any:
    """The run's lm-eval ``LM``, built as ``simple_evaluate`` builds it."""
    from lm_eval.api.registry import get_model

    extra = {"batch_size": cfg.batch_size, "max_batch_size": cfg.max_batch_size,
             "device": cfg.device}
    cls = get_model(cfg.model)
    if isinstance(cfg.model_args, Mapping):
        return cls.create_from_arg_obj(dict(cfg.model_args), extra)
    return cls.create_from_arg_string(cfg.model_args or "", extra)


@contextlib.contextmanager
def reusing(name: str, lm: Any) -> Iterator[None]:
    """While lm-eval runs, its registry hands out the ``LM`` detection already loaded for
    ``--model name`` instead of loading the weights a second time (nothing else changes: the
    run's results name the model as without detection)."""
    import lm_eval.api.registry as registry

    if lm is None:
        yield
        return
    original = registry.get_model

    class _Loaded:
        @staticmethod
        def create_from_arg_obj(*_: Any, **__: Any) -> Any:
            return lm

        create_from_arg_string = create_from_arg_obj

    registry.get_model = lambda model: _Loaded if model == name else original(model)
    try:
        yield
    finally:
        registry.get_model = original


def detect_in_run(cfg: Any, tasks: Mapping[str, Any], docs: Mapping[str, list[Any]],
                  indices: Mapping[str, list[int]], options: FilterOptions,
                  detect: DetectOptions) -> tuple[Detection, Any]:
    """TS-Guessing on the run's MMLU / TruthfulQA docs through the run's own LM (built on the
    first uncached probe). Returns the detection and the LM if it was built (for reuse)."""
    benchmarks, probes, dropped, why = probes_for_run(tasks, docs, indices)
    for name, benchmark in benchmarks.items():
        if benchmark is None:
            echo(f"no detector for this task: {name} ({why.get(name, 'no documents')}); "
                 "it runs unfiltered")
    loaded: dict[str, Any] = {}

    def lm() -> Any:
        if "lm" not in loaded:
            loaded["lm"] = _build_lm(cfg)
        return loaded["lm"]

    chat = bool(cfg.apply_chat_template)
    model = LMEvalTextModel(lm, f"lm-eval/{cfg.model}", answering_identity(cfg), chat=chat,
                            system_instruction=cfg.system_instruction)
    size = int(cfg.batch_size) if str(cfg.batch_size).isdigit() else 16
    flags, calls, cached, seconds = ts_guess_probes(
        model, probes, model_name=run_model_name(cfg, options), cache=detect.cache(),
        batch_size=max(size, 1), dry_run=detect.dry_run)
    return (Detection(tuple(flags), benchmarks, len(probes), calls, cached, seconds, dropped),
            loaded.get("lm"))
