"""``markdown_text``: a value interpolated into Markdown prose renders (CommonMark, markdown-it)
as its own text and adds no element: no raw HTML, link, image, emphasis, code, heading or list."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchchecker_plugin.report import markdown_cell, markdown_text
from tests.helpers.markdown import render

HOSTILE = [
    "<img src=x onerror=alert(1)>", "<script>alert(1)</script>", "[click](javascript:alert(1))",
    "![x](http://e.com/x.png)", "<http://e.com>", "*em* _em_ **strong** __s__ `code` ~~gone~~",
    "# heading", "x #", "1. one", "2) two", "- item", "+ item", "> quote", "---", "===", "***",
    "    indented code", "```fence", "~~~fence", "a | b", "&lt;script&gt; &amp; &#60;", "back\\slash\\",
    "[ref]: http://e.com", "[ref]", "line\nbreak # and\r\n- a list", "trailing  ", "x\\", "_a_b_",
    "snake_case_name", "org/model-7b_v2", "C# 3 #", "<!-- comment -->", "<a href='x'>y</a>",
]


def _plain(value: str) -> str:
    return " ".join(value.replace("\r", " ").split())


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize(("template", "tags"), [
    ("Text: {}", ["p"]), ("{}", ["p"]), ("# Check: {}", ["h1"]), ("- {}", ["ul", "li"]),
    ("1. {}", ["ol", "li"]),
])
def test_a_value_renders_as_its_own_text_in_any_place(value: str, template: str, tags: list[str]) -> None:
    out = render(template.format(markdown_text(value)))
    assert [t for t, _ in out.tags] == tags, (value, out.tags)
    assert all(attrs == () for _, attrs in out.tags)
    prefix = template.split("{}")[0].lstrip("#-1. ")
    assert "".join(out.text).strip() == _plain(prefix + value), value


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab1 _*`[]()!<>&#;|\\-+=.:~\n\"'/x")), max_size=40))
def test_no_text_makes_markup(value: str) -> None:
    out = render(f"- note: {markdown_text(value)}")
    assert [t for t, _ in out.tags] == ["ul", "li"] and all(a == () for _, a in out.tags)
    assert "".join(out.text).strip() == _plain(f"note: {value}")


def test_it_reads_as_written_where_nothing_could_become_markup() -> None:
    for plain in ("benchchecker.ts_guessing (20 records, 1 model)", "20241028_agentless-1.5_gpt4o: "
                  "partial resolved list (scored as it is).", "-2.5%", "C# and F#"):
        assert markdown_text(plain) == plain
    assert markdown_text("<b>") == "&lt;b&gt;" and markdown_cell("<b>") == "&lt;b&gt;"
