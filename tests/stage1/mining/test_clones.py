from benchchecker_plugin.stage1 import SourceFile
from benchchecker_plugin.stage1.mining import PatternKind, find_clones

A = '''import os

def load_user(db, user_id):
    row = db.query("users", user_id)
    if row is None:
        raise KeyError("no user %s" % user_id)
    return User(row.name, row.email)


def unrelated(x):
    return [i * 2 for i in range(x) if i % 3]
'''
B = '''def load_order(store, order_id):
    rec = store.query("orders", order_id)
    if rec is None:
        raise KeyError("no order %s" % order_id)
    return Order(rec.total, rec.email)
'''


def test_type2_clone_pair_across_files_is_found():
    clusters = find_clones([SourceFile("a.py", A), SourceFile("b.py", B)], min_tokens=10)
    funcs = [c for c in clusters if any(f.text.startswith("def load_user") for f in c.fragments)]
    assert len(funcs) == 1
    (c,) = funcs
    assert c.kind is PatternKind.CLONE
    assert [f.path for f in c.fragments] == ["a.py", "b.py"]
    assert c.fragments[1].text.startswith("def load_order") and c.fragments[1].text.endswith("rec.email)")
    # offsets point into the file text
    assert B[c.fragments[1].start:c.fragments[1].end] == c.fragments[1].text


def test_children_of_a_cloned_function_are_not_reported_separately():
    clusters = find_clones([SourceFile("a.py", A), SourceFile("b.py", B)], min_tokens=5)
    assert not any(f.text.startswith("if row is None") for c in clusters for f in c.fragments)


def test_type1_only_needs_identical_names():
    assert find_clones([SourceFile("a.py", A), SourceFile("b.py", B)], min_tokens=10,
                       type1_only=True) == []
    same = find_clones([SourceFile("a.py", A), SourceFile("c.py", A)], min_tokens=10,
                       type1_only=True)
    assert any(len(c.fragments) == 2 for c in same)


def test_java_clones():
    j = '''class A {
  int area(int w, int h) { int r = w * h; if (r < 0) { throw new IllegalStateException("neg"); } return r; }
  int vol(int a, int b) { int q = a * b; if (q < 0) { throw new IllegalStateException("bad"); } return q; }
}
'''
    clusters = find_clones([SourceFile("A.java", j)], language="java", min_tokens=15)
    assert any({f.text.split("(")[0].split()[-1] for f in c.fragments} == {"area", "vol"}
               for c in clusters)
