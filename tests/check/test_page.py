"""The check report's per-instance order (issue 29: TruthfulQA ids sorted as strings, 10 before 2)."""

from __future__ import annotations

from benchchecker_plugin.check._page import id_order


def test_ids_sort_with_their_numbers_as_numbers() -> None:
    ids = ["10", "2", "1", "100", "astronomy/10", "astronomy/9", "anatomy/3",
           "django__django-11099", "django__django-9296"]
    assert sorted(ids, key=id_order) == [
        "1", "2", "10", "100", "anatomy/3", "astronomy/9", "astronomy/10",
        "django__django-9296", "django__django-11099"]
