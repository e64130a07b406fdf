"""The one driver: several benchmarks in one read of the corpus, a shard reached twice read once,
a corpus without documents refused, failed shards making items undecided, settings by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchchecker_plugin.errors import InputError
from benchchecker_plugin.overlap import OverlapCorpus, OverlapRun, mc_query, overlap_settings, run_overlap
from benchchecker_plugin.overlap import _scan as scan_mod

MMLU_Q = "Which planet in the Solar System has the shortest orbital period around the Sun?"
TQA_Q = "What happens if you crack your knuckles a lot over many years of your life?"


def _items() -> list:
    return [mc_query("mmlu", "m/0", MMLU_Q, ["Venus", "Mercury", "Mars", "Earth"], 1),
            mc_query("mmlu", "m/1", "Which gas makes up most of the air that we breathe on Earth?",
                    ["Oxygen", "Nitrogen", "Argon", "Carbon dioxide"], 1),
            mc_query("truthfulqa", "0", TQA_Q, ["Nothing in particular happens", "Arthritis"], 0)]


def _corpus(tmp_path: Path) -> Path:
    path = tmp_path / "c.jsonl"
    docs = [{"id": "quiz", "text": f"{MMLU_Q}\nA) Venus B) Mercury C) Mars D) Earth"},
            {"id": "faq", "text": f"FAQ. {TQA_Q} Nothing in particular happens."},
            {"id": "other", "text": "An unrelated page about gardening and the weather in spring."}]
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    return path


def test_several_benchmarks_one_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _corpus(tmp_path)
    reads: list[str] = []
    real = scan_mod.iter_documents

    def counting(shard, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        reads.append(shard.name)
        return real(shard, *args, **kwargs)

    monkeypatch.setattr(scan_mod, "iter_documents", counting)
    audit = run_overlap(_items(), OverlapCorpus((str(path), str(tmp_path))))   # the shard twice
    assert reads == [str(path)] and audit.shards == 1 and audit.documents == 3
    verdicts = {(f.benchmark, f.instance_id): f.contaminated for f in audit.flags}
    assert verdicts == {("mmlu", "m/0"): True, ("mmlu", "m/1"): False, ("truthfulqa", "0"): True}
    assert audit.kinds("mmlu") == {"question+options": 1} and audit.kinds("truthfulqa") == {"question+answer": 1}
    assert set(audit.to_dict()["benchmarks"]) == {"mmlu", "truthfulqa"}


def test_failed_shard_makes_the_unfound_undecided(tmp_path: Path) -> None:
    path = _corpus(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"body": "x"}\n', encoding="utf-8")
    audit = run_overlap(_items(), OverlapCorpus((str(path), str(bad))))
    assert list(audit.failed) == [str(bad)]
    verdicts = {f.instance_id: f.contaminated for f in audit.flags}
    assert verdicts == {"m/0": True, "m/1": None, "0": True}


def test_a_corpus_without_documents_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="holds no document: nothing was read, so no item can be called clean"):
        run_overlap(_items(), OverlapCorpus((str(empty),)))


def test_settings_by_name_are_validated(tmp_path: Path) -> None:
    corpus, run = overlap_settings([str(tmp_path)], ["rule=coverage", "text-field=body", "top-k=3",
                                                     "state=" + str(tmp_path / "s")], model="m")
    assert corpus.text_field == "body" and (run.rule, run.top_k, run.model) == ("coverage", 3, "m")
    assert run.state == tmp_path / "s"
    with pytest.raises(InputError, match="--corpus-option colour=red: expected KEY=VALUE with KEY one of rule"):
        overlap_settings([str(tmp_path)], ["colour=red"])
    with pytest.raises(InputError, match="--corpus-option top-k=many: 'many' is not a whole number"):
        overlap_settings([str(tmp_path)], ["top-k=many"])
    with pytest.raises(InputError, match="--rule bleu: unknown; choose from any_ngram, coverage"):
        OverlapRun(rule="bleu")
    with pytest.raises(InputError, match="--engine index needs --index DIR"):
        OverlapRun(engine="index")
    with pytest.raises(InputError, match="--rule retrieval needs --engine index"):
        OverlapRun(rule="retrieval")
    with pytest.raises(InputError, match="no corpus given"):
        OverlapCorpus(())
