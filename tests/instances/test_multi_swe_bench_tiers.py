"""Multi-SWE-bench difficulty tiers from annotation workbooks: one written here, and the staged ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchchecker_plugin.errors import DataError, InputError
from benchchecker_plugin.instances import load_instances, load_multi_swe_bench_tiers
from benchchecker_plugin.instances._multi_swe_bench_tiers import tier_of_label
from tests.helpers import SHARED_DATA, needs_shared_data

openpyxl = pytest.importorskip("openpyxl")

DATA = SHARED_DATA / "multi_swe_bench"
EASY = "<15 分钟：只需要简单修改，例如为函数添加一些断言"
MEDIUM = "15 分钟 -- 1小时：需要一些思考的小型改动"
HARD = "1-4 小时：需要对函数或多个文件进行较大修改"
HARDEST = "4 小时以上：需要大量研究的复杂问题，涉及修改 100 行以上代码"
Q51 = "问题 5.1-{}：假设经验丰富的软件工程师有几小时熟悉代码库，理解问题、提出方案和编写代码大概需要多长时间？"


def _workbook(path: Path, rows: list[tuple]) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["问题序号", "示例id(instance_id)", "问题1.1：描述", Q51.format(1), Q51.format(2), "问题5.2：解释"])
    for row in rows:
        sheet.append(list(row))
    book.save(path)
    return path


def test_labels_map_to_the_papers_three_tiers() -> None:
    assert [tier_of_label(x) for x in (EASY, MEDIUM, "15 分钟 - 1小时：x", HARD, HARDEST)] == [
        "easy", "medium", "medium", "hard", "hard"]
    assert tier_of_label("") is None and tier_of_label("nan") is None
    with pytest.raises(DataError, match="unknown Multi-SWE-bench difficulty label '半天'"):
        tier_of_label("半天")


def test_tier_is_the_harder_annotator_label_keyed_by_dataset_id(tmp_path: Path) -> None:
    book = _workbook(tmp_path / "java.xlsx", [
        (50, "50_java_apache-dubbo-10638", "bug", EASY, MEDIUM, ""),
        (51, "51_java_fasterxml-jackson-core-1016", "bug", HARD, EASY, ""),
        (52, "52_java_google-gson-1787", "bug", None, EASY, ""),  # one annotator left it blank
        (53, "53_java_mockito-mockito-3129", "bug", None, None, ""),  # nobody labelled it
        (54, "fasterxml__jackson-databind-1113", "bug", HARD, None, ""),  # the dataset's own id
        (None, None, None, None, None, None),
    ])
    assert load_multi_swe_bench_tiers(book) == {
        "apache-dubbo-10638": "medium", "fasterxml-jackson-core-1016": "hard", "google-gson-1787": "easy",
        "fasterxml-jackson-databind-1113": "hard"}
    ids = ["apache__dubbo-10638", "fasterxml__jackson-core-1016", "alibaba__fastjson2-2775",
           "fasterxml__jackson-databind-1113"]
    assert load_multi_swe_bench_tiers(book, ids) == {
        "apache__dubbo-10638": "medium", "fasterxml__jackson-core-1016": "hard",
        "fasterxml__jackson-databind-1113": "hard"}


def test_bad_workbooks(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        load_multi_swe_bench_tiers(tmp_path / "none.xlsx")
    bad = _workbook(tmp_path / "bad.xlsx", [(1, "1_go_cli-cli-1", "x", "a week", EASY, "")])
    with pytest.raises(DataError, match=r"bad\.xlsx row 2 \(1_go_cli-cli-1\): unknown .* 'a week'"):
        load_multi_swe_bench_tiers(bad)
    book = openpyxl.Workbook()
    book.active.append(["instance_id", "difficulty"])
    book.save(tmp_path / "plain.xlsx")
    with pytest.raises(DataError, match="question 5.1"):
        load_multi_swe_bench_tiers(tmp_path / "plain.xlsx")


@needs_shared_data("multi_swe_bench", "annotations", "java.xlsx")
def test_staged_java_annotations_cover_every_staged_java_instance() -> None:
    ids = [i.instance_id for i in load_instances(DATA / "instances" / "java")]
    tiers = load_multi_swe_bench_tiers(DATA / "annotations" / "java.xlsx", ids)
    assert set(tiers) == set(ids)
    assert set(tiers.values()) == {"easy", "medium", "hard"}


def test_without_openpyxl_the_hint_names_the_real_package(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29: the hint said `benchchecker[xlsx]`; the distribution is benchchecker_plugin."""
    import pandas as pd

    def no_openpyxl(*args: object, **kwargs: object) -> None:
        raise ImportError("Missing optional dependency 'openpyxl'.")

    monkeypatch.setattr(pd, "read_excel", no_openpyxl)
    book = _workbook(tmp_path / "java.xlsx", [])
    with pytest.raises(InputError) as err:
        load_multi_swe_bench_tiers(book)
    assert str(err.value) == (f"{book}: reading .xlsx needs openpyxl "
                              "(pip install 'benchchecker_plugin[xlsx]')")
