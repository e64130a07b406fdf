from benchchecker_plugin.stage1 import SourceFile
from benchchecker_plugin.stage1.mining import find_cooccurrences

TEXT = '''resp = client.get("/a")
assert_status(resp.status_code, 200)
resp = client.post("/b", json=payload)
assert_status(resp.status_code, 201)
value = compute(left, right)
resp = client.delete("/c")
assert_status(resp.status_code, 204)
other = thing.call(one)
'''


def test_cooccurrence_pattern_surfaces():
    clusters = find_cooccurrences([SourceFile("t.py", TEXT)], min_support=3, min_length=3)
    keys = [c.key for c in clusters]
    assert "assert_status resp status_code" in keys
    (c,) = [c for c in clusters if c.key == "assert_status resp status_code"]
    assert [f.text[-4:] for f in c.fragments] == ["200)", "201)", "204)"]
    assert all(TEXT[f.start:f.end] == f.text for f in c.fragments)


def test_support_threshold():
    clusters = find_cooccurrences([SourceFile("t.py", TEXT)], min_support=4, min_length=3)
    assert "assert_status resp status_code" not in [c.key for c in clusters]
