"""The language registry: what stage II needs to know about a language's tree-sitter grammar.

Register another language with :func:`register_language`. Python and Java are registered here;
C, C++, Go, JavaScript, TypeScript (and TSX) and Rust in :mod:`._grammars` (the Multi-SWE-bench
languages). A file of a language that is not registered is still handled, line by line, without
a syntax tree. The registry itself lives in :mod:`._language_spec` (which imports no grammar).
"""

from __future__ import annotations

# the registry's names, re-exported: importing them from here registers the built-in languages
from ._language_spec import LanguageSpec as LanguageSpec
from ._language_spec import get_language as get_language
from ._language_spec import get_parser as get_parser
from ._language_spec import language_names as language_names
from ._language_spec import parse_text as parse_text
from ._language_spec import register_language as register_language

register_language(LanguageSpec(
    name="python", grammar="python",
    functions=frozenset({"function_definition"}),
    classes=frozenset({"class_definition"}),
    comments=frozenset({"comment"}),
    statements=frozenset({
        "expression_statement", "return_statement", "assert_statement", "raise_statement",
        "import_statement", "import_from_statement", "delete_statement", "global_statement",
        "nonlocal_statement", "print_statement", "exec_statement", "pass_statement",
        "decorator"}),
    strings=frozenset({"string", "concatenated_string"}),
    docstrings=True, single_quotes_equal=True,
))

register_language(LanguageSpec(
    name="java", grammar="java",
    functions=frozenset({"method_declaration", "constructor_declaration"}),
    classes=frozenset({"class_declaration", "interface_declaration", "enum_declaration",
                       "record_declaration", "annotation_type_declaration"}),
    comments=frozenset({"line_comment", "block_comment", "comment"}),
    blocks=frozenset({"block", "class_body", "interface_body", "enum_body", "constructor_body",
                      "switch_block", "annotation_type_body", "module_body"}),
    statements=frozenset({
        "expression_statement", "local_variable_declaration", "return_statement",
        "throw_statement", "field_declaration", "assert_statement", "break_statement",
        "continue_statement", "import_declaration", "package_declaration", "yield_statement"}),
    strings=frozenset({"string_literal", "character_literal", "text_block"}),
))

from . import _grammars  # noqa: E402,F401  (registers the Multi-SWE-bench languages, after these two)
