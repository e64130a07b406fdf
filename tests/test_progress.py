"""Progress when stderr is not a terminal: log lines, not silence (issue 13, item 11)."""

from __future__ import annotations

import pytest

from benchchecker_plugin.progress import progress


@pytest.fixture
def piped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BENCHCHECKER_PROGRESS", raising=False)   # conftest silences it


def _lines(err: str) -> list[str]:
    return [ln.rsplit(",", 1)[0] for ln in err.strip().splitlines()]


def test_one_line_per_tenth_and_one_at_the_end(piped: None, capsys: pytest.CaptureFixture) -> None:
    assert list(progress(range(20), desc="score")) == list(range(20))
    want = [f"benchchecker: score: {n}/20 ({n / 20:.0%})" for n in range(2, 20, 2)]
    assert _lines(capsys.readouterr().err) == want + ["benchchecker: score: 20/20 (100%)"]


def test_unknown_total_logs_by_time(piped: None, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("BENCHCHECKER_PROGRESS_SECONDS", "0")
    assert list(progress(iter("abc"), desc="fetch")) == ["a", "b", "c"]
    assert _lines(capsys.readouterr().err) == [
        "benchchecker: fetch: 1", "benchchecker: fetch: 2", "benchchecker: fetch: 3",
        "benchchecker: fetch: 3"]


def test_zero_silences(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setenv("BENCHCHECKER_PROGRESS", "0")
    assert list(progress(range(5), desc="x")) == list(range(5))
    assert capsys.readouterr().err == ""


def test_one_bar_takes_every_nested_loop(piped: None, capsys: pytest.CaptureFixture) -> None:
    """Issue 29: patch-presence drew a bar per snapshot (~300 lines for 18 instances)."""
    from benchchecker_plugin.progress import one_bar

    with one_bar(desc="all", total=30) as bar:
        for weight in (1, 2):
            bar.weight = weight
            assert list(progress(range(10), desc=f"inner {weight}")) == list(range(10))
    lines = _lines(capsys.readouterr().err)
    assert lines[-1] == "benchchecker: all: 30/30 (100%)"
    assert all(ln.startswith("benchchecker: all: ") for ln in lines)
    assert list(progress(range(3), desc="after")) == [0, 1, 2]     # the block is over
    assert _lines(capsys.readouterr().err)[-1] == "benchchecker: after: 3/3 (100%)"


def test_one_line_per_job_counting_items_with_rate_and_eta(piped: None,
                                                           capsys: pytest.CaptureFixture) -> None:
    """Issue 39 item 7: a `generate …: 1/1 (100%)` line per batch, batches counted, no rate/ETA."""
    batches = [[0] * 16] * 10
    for _ in progress(batches, desc="ts-guessing hf:/m.gguf", weights=[len(b) for b in batches]):
        assert list(progress([1], desc="generate hf//m.gguf")) == [1]            # a single step
        assert list(progress(range(3), desc="generate nested")) == [0, 1, 2]     # inside the job
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 10 and all(ln.startswith("benchchecker: ts-guessing hf:/m.gguf: ") for ln in lines)
    assert lines[0].startswith("benchchecker: ts-guessing hf:/m.gguf: 16/160 (10%), ")
    assert " items/s, ETA " in lines[0]
    assert lines[-1].startswith("benchchecker: ts-guessing hf:/m.gguf: 160/160 (100%), ")
    assert list(progress(range(3), desc="after")) == [0, 1, 2]                   # the job is over
    assert capsys.readouterr().err.startswith("benchchecker: after: 1/3")


def test_model_label_has_no_double_slash() -> None:
    from benchchecker_plugin.progress import model_label

    assert model_label("hf//data/models/m.gguf") == "hf:/data/models/m.gguf"
    assert model_label("hf/HuggingFaceTB/SmolLM2-135M") == "hf/HuggingFaceTB/SmolLM2-135M"
    assert model_label("openai-compatible/llama") == "openai-compatible/llama"


def test_steps_with_a_rate_a_status_and_an_early_end(piped: None, capsys: pytest.CaptureFixture) -> None:
    """A training loop: lines carry the rate in its unit, the ETA and a status (the loss); a loop
    left early (training stopped once it converged) still writes its last line, counting the
    step it was on."""
    state = {"loss": 9.0}
    for step in progress(range(1, 101), desc="fine-tune", unit="steps", status=lambda: f"loss {state['loss']:.1f}"):
        state["loss"] = 100 / step
        if step == 37:
            break
    lines = capsys.readouterr().err.strip().splitlines()
    assert [ln.split(": ")[2].split(",")[0] for ln in lines] == \
        ["10/100 (10%)", "20/100 (20%)", "30/100 (30%)", "37/100 (37%)"]
    assert all(" steps/s, " in ln for ln in lines) and "ETA" in lines[0]
    assert lines[0].endswith(", loss 10.0") and lines[-1].endswith(", loss 2.7")


def test_a_slow_tenth_still_gets_a_line_by_time(piped: None, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture) -> None:
    """A known total whose tenths take long (a fine-tune that stops far before its cap, a loaded
    machine): a line at least every BENCHCHECKER_PROGRESS_SECONDS, not only per tenth."""
    monkeypatch.setenv("BENCHCHECKER_PROGRESS_SECONDS", "0")
    assert list(progress(range(1, 4), desc="slow", total=100)) == [1, 2, 3]
    assert _lines(capsys.readouterr().err) == [f"benchchecker: slow: {n}/100 ({n}%)" for n in (1, 2, 3, 3)]
