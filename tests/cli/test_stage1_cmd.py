"""``repo-presence`` (and ``calibrate``) and ``baselines`` through the CLI, on a tiny GPT-2 saved to
a folder and loaded by ``get_model("hf/<folder>")`` like any local model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchchecker_plugin.cli import main
from benchchecker_plugin.flags import read_flags

pytestmark = pytest.mark.model

CODE = '''import registry


def setup_handlers(app):
    app.register("orders", handle_orders_v2, retries=3)
    app.register("payments", settle_payment_batch, retries=5)
    app.register("refunds", reverse_charge_flow, retries=2)
    app.register("invoices", render_invoice_pdf, retries=4)


def load_user(db, user_id):
    row = db.query("users", user_id)
    if row is None:
        raise KeyError("no user %s" % user_id)
    return UserRecord(row.name, row.email)


def load_order(store, order_id):
    rec = store.query("orders", order_id)
    if rec is None:
        raise KeyError("no order %s" % order_id)
    return OrderRecord(rec.total, rec.email)
'''


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> str:
    from benchchecker_plugin.models import tiny_gpt2, train_tokenizer

    folder = tmp_path_factory.mktemp("gpt2")
    tok = train_tokenizer([CODE], 300)
    model = tiny_gpt2(tok, n_positions=1024, n_embd=32, n_layer=1, n_head=2, seed=0)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return f"hf/{folder}"


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    r = tmp_path / "shopapp"
    r.mkdir()
    (r / "handlers.py").write_text(CODE)
    (r / "more.py").write_text(CODE.replace("orders", "carts").replace("user", "client"))
    return r


def _run(args: list[str]):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def test_repo_presence_writes_a_repo_flag_and_rerun_is_fully_cached(tiny_model, repo, tmp_path):
    out = tmp_path / "f.jsonl"
    cache = tmp_path / "cache"
    args = ["repo-presence", "--model", tiny_model, "--repo", str(repo), "--n-queries", "6",
            "--samples", "2", "--max-tokens", "4", "--cache-dir", str(cache)]
    res = _run(args + ["-o", str(out)])
    assert res.exit_code == 0, res.output
    (flag,) = read_flags(out)
    assert (flag.benchmark, flag.instance_id, flag.method) == ("repo", "shopapp", "benchchecker.stage1")
    assert flag.evidence["queries"] >= 1 and flag.p_value is not None
    assert flag.score == pytest.approx(-__import__("math").log10(flag.p_value))
    assert flag.model == tiny_model
    # Re-running answers everything from the cache: the dry run counts zero calls to make.
    dry = _run(args + ["--dry-run"])
    assert dry.exit_code == 0, dry.output
    n = flag.evidence["queries"] * 2
    assert f"dry run: {n} model calls ({n} cached)" in dry.output


def test_dry_run_without_cache_counts_calls(tiny_model, repo, tmp_path):
    res = _run(["repo-presence", "--model", tiny_model, "--repo", str(repo), "--n-queries", "4",
                "--samples", "3", "--no-cache", "--dry-run"])
    assert res.exit_code == 0, res.output
    q = int(res.output.split(" queries")[0])
    assert f"{q} queries x 3 samples; dry run: {3 * q} model calls (0 cached)" in res.output


def test_instances_give_one_flag_per_instance(tiny_model, repo, tmp_path):
    inst = tmp_path / "inst.jsonl"
    rows = [{"instance_id": f"acme__shopapp-{i}", "repo": "acme/shopapp", "base_commit": "0" * 40,
             "patch": "--- a/h.py\n+++ b/h.py\n@@ -1 +1 @@\n-a\n+b\n", "test_patch": "", "FAIL_TO_PASS": "[]", "PASS_TO_PASS": "[]"}
            for i in (1, 2)]
    rows.append(dict(rows[0], instance_id="other__x-1", repo="other/x"))
    inst.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "f.jsonl"
    res = _run(["repo-presence", "--model", tiny_model, "--repo", str(repo), "--n-queries", "3",
                "--samples", "1", "--no-cache", "--instances", str(inst), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert sorted(f.instance_id for f in read_flags(out)) == ["acme__shopapp-1", "acme__shopapp-2"]


def test_calibrate_writes_p0_that_repo_presence_reads(tiny_model, repo, tmp_path):
    cal = tmp_path / "cal.json"
    res = _run(["repo-presence", "calibrate", "--model", tiny_model, "--repo", str(repo),
                "--n-queries", "4", "--samples", "1", "--no-cache", "-o", str(cal)])
    assert res.exit_code == 0, res.output
    doc = json.loads(cal.read_text())
    assert doc["p0"] == pytest.approx((doc["hits"] + 0.5) / (doc["queries"] + 1))
    out = tmp_path / "f.jsonl"
    res = _run(["repo-presence", "--model", tiny_model, "--repo", str(repo), "--n-queries", "4",
                "--samples", "1", "--no-cache", "--p0", str(cal), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert read_flags(out)[0].evidence["p0"] == pytest.approx(doc["p0"])


def test_errors_are_one_line_with_exit_code(repo, tmp_path):
    res = CliRunner().invoke(main, ["repo-presence", "--model", "hf/x", "--repo", str(repo),
                                    "--p0", "nope", "-o", str(tmp_path / "f")])
    assert res.exit_code == 2 and "--p0 'nope' is neither a number nor a calibration file" in res.output
    res = CliRunner().invoke(main, ["repo-presence", "--model", "hf/x"])
    assert res.exit_code == 2 and "repo-presence needs --repo" in res.output
    res = CliRunner().invoke(main, ["repo-presence", "--repo", str(repo)])
    assert res.exit_code == 2 and "give -o/--output (or --dry-run)" in res.output


def test_baselines_table_and_flags(tiny_model, repo, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "m.py").write_text("def f(x):\n    return [y * 2 for y in x]\n")
    out = tmp_path / "b.jsonl"
    res = _run(["baselines", "--model", tiny_model, "--repo", str(repo), "--repo", str(other),
                "--no-cache", "-o", str(out)])
    assert res.exit_code == 0, res.output
    lines = [l for l in res.stdout.splitlines() if "\t" in l]
    assert lines[0].split("\t") == ["repo", "files", "tokens", "loss", "zlib", "min_k", "min_k_pp"]
    assert [l.split("\t")[0] for l in lines[1:]] == ["shopapp", "other"]
    assert len(read_flags(out)) == 8


def test_baselines_reads_a_no_checkout_clone_as_of_its_cutoff(tiny_model, repo, tmp_path):
    """Issue 29, item 6: on the --no-checkout clones `repos fetch` makes, `baselines` said "no
    python source files" and had no --cutoff; it takes the snapshot option Stage I has."""
    import subprocess

    from tests.helpers.git_history import commit_all, git

    git(repo, ["init", "-q", "-b", "main"])
    commit_all(repo, "2023-01-10")
    (repo / "late.py").write_text(CODE.replace("orders", "baskets"))
    commit_all(repo, "2024-03-01")
    clone = tmp_path / "clones" / "org__shopapp"
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(repo), str(clone)], check=True)
    res = CliRunner().invoke(main, ["baselines", "--model", tiny_model, "--repo", str(clone),
                                    "--no-cache"])
    assert res.exit_code == 2
    assert res.output.strip().splitlines()[-1] == (
        f"Error: {clone}: a git clone without a checkout (what `benchchecker repos fetch` "
        "makes): give --cutoff DATE to read it as it was then")
    rows = {}
    for cutoff in ("2023-06", "2024-06"):
        res = _run(["baselines", "--model", tiny_model, "--repo", str(clone), "--cutoff", cutoff,
                    "--no-cache"])
        assert res.exit_code == 0, res.output
        [row] = [ln.split("\t") for ln in res.stdout.splitlines()[1:] if "\t" in ln]
        rows[cutoff] = row
    assert (rows["2023-06"][1], rows["2024-06"][1]) == ("2", "3")     # files as of each cutoff
