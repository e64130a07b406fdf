from benchchecker_plugin.stage1.mining import SLOT, Cluster, Fragment, PatternKind, extract_template


def _cluster(*texts):
    return Cluster(PatternKind.CLONE, tuple(Fragment("f.py", 0, len(t), t) for t in texts))


def test_template_slots_are_the_differing_tokens():
    t = extract_template(_cluster('x = load("users", 10)', 'x = load("orders", 25)',
                                  'x = load("items", 7)'))
    assert t.parts == ("x", "=", "load", "(", SLOT, ",", SLOT, ")")
    assert t.slot_values(0) == ['"users"', '"orders"', '"items"']
    assert t.slot_values(1) == ["10", "25", "7"]


def test_insertion_in_a_later_fragment_is_a_slot():
    t = extract_template(_cluster("call(a, b)", "call(a, extra, b)"))
    assert SLOT in t.parts
    vals = [v for j in range(t.n_slots) for v in t.slot_values(j)]
    assert "extra," in vals or "extra ," in vals or ", extra" in vals


def test_identical_fragments_have_no_slot():
    assert extract_template(_cluster("a = b + c", "a = b + c")).n_slots == 0
