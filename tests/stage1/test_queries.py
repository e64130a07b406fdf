from benchchecker_plugin.stage1 import (
    Query,
    SourceFile,
    drop_near_duplicates,
    instantiate_queries,
    is_context_independent,
    is_distinctive,
    is_hit,
    is_repetitive,
    select_queries,
)
from benchchecker_plugin.stage1.mining import Cluster, Fragment, PatternKind, extract_template

FILE = '''import db

def handlers():
    register("orders", handle_orders_v2)
    register("payments", settle_payment_batch)
    register("refunds", reverse_charge_flow)
'''


def _template():
    frags = []
    for line in FILE.splitlines(keepends=True):
        if line.strip().startswith("register"):
            start = FILE.index(line) + 4
            frags.append(Fragment("h.py", start, start + len(line.strip()), line.strip()))
    return extract_template(Cluster(PatternKind.CLONE, tuple(frags)))


def test_instantiate_gives_prefix_query_and_slot_target():
    qs = instantiate_queries([SourceFile("h.py", FILE)], [_template()])
    targets = {q.target for q in qs}
    assert {"handle_orders_v2", "settle_payment_batch", '"payments"'} <= targets
    q = next(q for q in qs if q.target == "settle_payment_batch")
    assert q.query.endswith('register("payments",') and q.gap == " "
    assert FILE[q.offset:q.offset + len(q.target)] == q.target
    assert q.query.startswith("import db")


def test_query_is_cut_at_a_line_start():
    qs = instantiate_queries([SourceFile("h.py", FILE)], [_template()], query_chars=30)
    assert all(FILE[q.offset - len(q.query) - len(q.gap) - 1] == "\n" for q in qs)


def test_repetitive_needs_two_distinct_values():
    t = _template()
    assert all(is_repetitive(t, j) for j in range(t.n_slots))
    same = extract_template(Cluster(PatternKind.CLONE, (Fragment("a", 0, 5, "f(x1)"),
                                                        Fragment("b", 0, 5, "f(x1)"))))
    assert same.n_slots == 0


def test_distinctive():
    assert is_distinctive("settle_payment_batch")
    assert is_distinctive('"payments"')
    for bad in ["self", "None", "len", "if", "x", "0", "12", "", "  ", "+=", "the quick"]:
        assert not is_distinctive(bad), bad
    assert not is_distinctive("public", language="java")
    assert is_distinctive("public", language="python")


def test_context_independent():
    assert is_context_independent("x = compute(a)\ny = ", "compute_all")
    assert not is_context_independent("x = compute_all(a)\ny = ", "compute_all")
    assert not is_context_independent('load("a.txt")', '"a.txt"')


def test_is_hit_is_exact_reproduction_at_word_boundary():
    assert is_hit(" settle_payment_batch)\n", "settle_payment_batch")
    assert is_hit("settle_payment_batch", "settle_payment_batch")
    assert not is_hit(" settle_payment_batchX", "settle_payment_batch")
    assert not is_hit(" settle_payment", "settle_payment_batch")
    assert is_hit('"payments",', '"payments"')
    assert not is_hit("anything", "")


def test_near_duplicate_queries_are_dropped():
    tail = "(self, request):\n    payload = request.json()\n    return compute(alpha_value,"
    a = Query("a.py", 10, "import os\ndef handle_request" + tail, "beta_value", "p")
    b = Query("b.py", 50, "def handle_reply" + tail, "beta_value", "p")
    c = Query("c.py", 5, "class Totally:\n    different = thing", "beta_value", "p")
    d = Query("a.py", 10, "other", "other_target", "q")  # same place as a: dropped
    kept = drop_near_duplicates([a, b, c, d])
    assert kept == [a, c]


def test_select_applies_filters_in_order():
    qs = [Query("a", 1, "x = ", "self", "p"), Query("a", 2, "y = special_name\nz = ", "special_name", "p"),
          Query("a", 3, "w = ", "rare_identifier_x", "p")]
    assert [q.offset for q in select_queries(qs)] == [3]
