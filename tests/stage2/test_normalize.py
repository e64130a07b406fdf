"""Logical lines and normalisation: formatting and comments do not change a line; tokens do."""

from __future__ import annotations

from benchchecker_plugin.stage2 import normalize_code, parse_source

PY = '''import os


class Box:
    """A box."""

    SIZES = {1: 2,
             3: 4}

    def area(self, width,
             height=1,):  # a comment
        \'\'\'Docstring.\'\'\'
        total = compute(width, 'x',
                        height)  # trailing comment
        return total + \\
            1
'''

PY_REFORMATTED = '''import os
class Box:
    SIZES = {1: 2, 3: 4}
    def area(self, width, height=1):
        # a different comment
        total = compute(
            width,
            "x",
            height,
        )
        return total + 1
'''


def test_python_logical_lines_join_brackets_and_continuations() -> None:
    parsed = parse_source(PY, "python")
    got = [(ln.start, ln.end, ln.text) for ln in parsed.lines]
    assert got == [
        (0, 0, "import os"),
        (3, 3, "class Box :"),
        (6, 7, "SIZES = { 1 : 2 , 3 : 4 }"),
        (9, 10, "def area ( self , width , height = 1 ) :"),
        (12, 13, 'total = compute ( width , "x" , height )'),
        (14, 15, "return total + 1"),
    ]
    assert [s.qualname for s in parsed.scopes] == ["Box", "Box.area"]
    assert parsed.enclosing(13).qualname == "Box.area"
    assert parsed.enclosing(7).qualname == "Box"
    assert parsed.line_at(13).start == 12 and parsed.line_at(11) is None  # docstring row


def test_reformatting_and_comments_normalise_alike() -> None:
    assert normalize_code(PY, "python") == normalize_code(PY_REFORMATTED, "python")


def test_token_changes_are_kept() -> None:
    a = normalize_code("if x == 1:\n    y()\n", "python")
    b = normalize_code("if x != 1:\n    y()\n", "python")
    assert a != b


def test_string_statement_inside_a_body_is_not_a_docstring() -> None:
    lines = normalize_code("def f():\n    x = 1\n    'not a docstring'\n", "python")
    assert lines[-1] == '"not a docstring"'


def test_java_comments_blocks_and_statements() -> None:
    src = """public class A {
  // comment
  int f(int x) {
    int y = x +
       1; /* block */
    if (x > 0) {
      return y;
    }
    return 0;
  }
}"""
    parsed = parse_source(src, "java")
    texts = [ln.text for ln in parsed.lines]
    assert texts == ["public class A {", "int f ( int x ) {", "int y = x + 1 ;", "if ( x > 0 ) {",
                     "return y ;", "}", "return 0 ;", "}", "}"]
    assert [s.qualname for s in parsed.scopes] == ["A", "A.f"]
    assert parsed.lines_in(None)[0].text == "public class A {"


def test_raw_mode_keeps_rows_and_comments() -> None:
    parsed = parse_source("x = f(a,\n      b)  # c\n", "python", preprocess=False)
    assert [ln.text for ln in parsed.lines] == ["x = f(a,", "b)  # c"]


def test_unknown_language_is_line_based() -> None:
    assert normalize_code("a   b\n\n  c\n", "cobol") == ["a b", "c"]
