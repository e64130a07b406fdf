"""Probes per second: any multiple-choice task read through its own lm-eval definition vs the MMLU
path, in the same run (issue 30: the generic path may be at most 10% slower).

On the first ``--items`` documents of the shipped ``mmlu_local_*`` tasks (real MMLU rows, read by
lm-eval's own TaskManager), each round times, with CPU time, from the loaded task's documents to
one flag per probe:

- ``mmlu``: today's MMLU detector (documents recognised as MMLU, ``item_of``);
- ``generic``: the same tasks read through their definitions (``read_mc_task``: ``doc_to_text``,
  ``doc_to_choice``, ``doc_to_target`` rendered by lm-eval);
- ``arc``: the same rows as an ARC-shaped JSON task (lm-eval's ARC definition: Jinja choice list,
  Jinja integer target), read the generic way.

``--model stub`` (default) answers at once, so a probe's time is only our path: reading,
filtering, masking, prompting and scoring. ``--model tiny`` asks an untrained 2-layer GPT-2
through the ``hf/`` backend (32 greedy tokens per probe, batches of 16, one torch thread): the
cheapest real model, so the reading's share of a run is an upper bound for any real one. Rounds
are interleaved; the median round counts. Run on an idle machine:

    python benchmarks/tsguessing_generic.py [--items 1000] [--rounds 5] [--model stub|tiny]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "mmlu"


class _Instant:
    """A TextModel that answers every prompt at once (the same short guess)."""

    spec = "stub/instant"

    def generate(self, prompts, params):  # type: ignore[no-untyped-def]
        from benchchecker_plugin.models import Completion

        return [Completion(text="the hidden option") for _ in prompts]


def _load(include: Path, names: list[str], metadata: dict | None):  # type: ignore[no-untyped-def]
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(include), include_defaults=False, metadata=metadata)
    tasks = dict(manager.load(names)["tasks"])
    return tasks, {n: list(t.eval_docs) for n, t in tasks.items()}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--items", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--model", choices=("stub", "tiny"), default="stub")
    args = p.parse_args()

    import os

    os.environ.setdefault("BENCHCHECKER_PROGRESS", "0")
    from benchchecker_plugin.tsguessing import BenchmarkItem, prepare_probes, run_probes
    from harness_adapters.lm_eval._detect import item_of
    from harness_adapters.lm_eval._mc_task import read_mc_task
    from tests.helpers.mc_tasks import arc_records, write_lm_eval_tasks

    shipped = REPO / "tasks" / "lm_eval"
    from lm_eval.tasks import TaskManager

    names = sorted(n for n in TaskManager(include_path=str(shipped), include_defaults=False)
                   .all_subtasks if n.startswith("mmlu_local_"))
    tasks, docs = _load(shipped, names, {"data": str(args.data)})
    chosen: dict[str, list[int]] = {}
    left = args.items
    for name in names:
        if left <= 0:
            break
        chosen[name] = list(range(min(left, len(docs[name]))))
        left -= len(chosen[name])
    rows = [docs[n][i] for n, idx in chosen.items() for i in idx]
    folder = Path(tempfile.mkdtemp(prefix="tsg_generic_"))
    write_lm_eval_tasks(folder, arc_records(rows))
    arc_tasks, arc_docs = _load(folder, ["arc_local"], None)
    arc_idx = list(range(len(arc_docs["arc_local"])))
    why = read_mc_task("arc_local", arc_tasks["arc_local"], arc_docs["arc_local"], arc_idx).why
    if why:
        raise SystemExit(f"arc_local: {why}")

    def mmlu_items() -> list[BenchmarkItem]:
        return [item_of("mmlu", i, docs[n][i], task_name=n, task=tasks[n])
                for n, idx in chosen.items() for i in idx]

    def generic_items() -> list[BenchmarkItem]:
        return [it for n, idx in chosen.items() for it in read_mc_task(n, tasks[n], docs[n], idx).items]

    def arc_items() -> list[BenchmarkItem]:
        return list(read_mc_task("arc_local", arc_tasks["arc_local"], arc_docs["arc_local"],
                                 arc_idx).items)

    model: object = _Instant()
    if args.model == "tiny":
        import torch

        from benchchecker_plugin.models import get_model, tiny_gpt2, train_tokenizer

        torch.set_num_threads(1)
        texts = [d["question"] + " " + " ".join(d["choices"]) for d in rows]
        tok = train_tokenizer(texts, 1000, roles=("eos", "pad"))
        tiny = folder / "tiny"
        tok.save_pretrained(tiny)
        tiny_gpt2(tok, n_positions=1024, n_embd=64, n_layer=2, n_head=2, seed=0).save_pretrained(tiny)
        model = get_model(f"hf/{tiny}", batch_size=16, prefill_cache_mb=0)
    paths = {"mmlu": mmlu_items, "generic": generic_items, "arc": arc_items}
    times: dict[str, list[float]] = {k: [] for k in paths}
    probes: dict[str, int] = {}
    for _ in range(args.rounds):
        for name, read in paths.items():
            start = time.process_time()
            made = prepare_probes(read(), "multichoice").probes
            flags = run_probes(model, made, batch_size=16)
            times[name].append(time.process_time() - start)
            probes[name] = len(flags)
    base = statistics.median(times["mmlu"])
    print(f"{len(rows)} items, {args.rounds} rounds (median CPU seconds), model {args.model}")
    print("path | probes | CPU s | probes/s | vs mmlu")
    for name in paths:
        t = statistics.median(times[name])
        print(f"{name} | {probes[name]} | {t:.2f} | {probes[name] / t:.0f} | "
              f"{(probes[name] / t) / (probes['mmlu'] / base):.2f}x")


if __name__ == "__main__":
    main()
