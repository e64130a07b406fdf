from benchchecker_plugin.membership import build_corpus, package_repo


def test_corpus_is_disjoint_equal_sized_and_deterministic():
    a = build_corpus(3, 2000, seed=1)
    b = build_corpus(3, 2000, seed=1)
    assert [r.name for r in a.members] == [r.name for r in b.members]
    names_m = {r.name for r in a.members}
    names_n = {r.name for r in a.nonmembers}
    assert len(names_m) == len(names_n) == 3 and not names_m & names_n
    for r in a.members + a.nonmembers:
        assert 1800 <= r.n_chars <= 2000
        assert all(f.path.startswith(r.name + "/") and f.path.endswith(".py") for f in r.files)
    assert [r.name for r in build_corpus(3, 2000, seed=2).members] != [r.name for r in a.members]


def test_package_repo_missing_or_too_small():
    assert package_repo("no_such_package_xyz", 1000) is None
    assert package_repo("click", 10**9) is None
