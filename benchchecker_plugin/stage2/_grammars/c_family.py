"""C and C++: a function's name sits at the end of its declarator chain.

``int *(*f)(void)`` and ``Foo::bar<T>`` keep the name below pointer, function, parenthesised and
reference declarators; C++ ``a::B<T>::c`` becomes the dotted name ``a.B.c``. Structs, unions,
enums and C++ classes with a body are class scopes (an anonymous ``typedef struct {...} T`` is
named ``T``); namespaces, ``extern "C"`` and preprocessor conditionals are searched, not scopes.

``.h`` files are C by extension (:mod:`benchchecker_plugin.repos._language`); the C spec falls
back to the C++ grammar when that parses the text with fewer errors, so a C++ header is read as
C++.
"""

from __future__ import annotations

from typing import Any

from .._language_spec import LanguageSpec, register_language
from ._names import field, text

_NAME_LEAVES = frozenset({"identifier", "field_identifier", "type_identifier", "operator_name",
                          "destructor_name", "namespace_identifier", "primitive_type"})
_TEMPLATED = frozenset({"template_type", "template_function", "template_method"})
_BODIES = frozenset({"field_declaration_list", "enumerator_list"})
_NOT_DECLARATORS = frozenset({"attribute_declaration", "ms_call_modifier"})


def _qualified(node: Any) -> list[str]:
    """``a::B<T>::c`` -> ``["a", "B", "c"]`` (template arguments dropped)."""
    typ = node.type
    if typ == "qualified_identifier":
        scope, name = field(node, "scope"), field(node, "name")
        return [*(_qualified(scope) if scope is not None else []),
                *(_qualified(name) if name is not None else [])]
    if typ in _TEMPLATED:
        name = field(node, "name")
        return _qualified(name) if name is not None else []
    return [text(node)]


def _declarator_name(node: Any) -> str | None:
    """The (dotted) name at the end of a declarator chain."""
    for _ in range(64):  # declarator chains are short; a bound instead of a recursion
        if node is None:
            return None
        typ = node.type
        if typ in _NAME_LEAVES or typ == "qualified_identifier" or typ in _TEMPLATED:
            parts = [p for p in _qualified(node) if p]
            return ".".join(parts) or None
        nxt = field(node, "declarator")
        if nxt is None:  # parenthesized_declarator, attributed_declarator: the first named child
            nxt = next((c for c in node.named_children if c.type not in _NOT_DECLARATORS), None)
        node = nxt
    return None


def _type_name(node: Any) -> str | None:
    """A struct / union / enum / class with a body: its name (a typedef's for an anonymous one)."""
    body = field(node, "body")
    if body is None or body.type not in _BODIES:
        return None  # a use of the type (``struct foo *p``), not its definition
    name = field(node, "name")
    if name is not None:
        return ".".join(p for p in _qualified(name) if p) or None
    parent = node.parent
    if parent is not None and parent.type == "type_definition":
        return _declarator_name(field(parent, "declarator"))
    return None


def _scope_name(node: Any) -> str | None:
    if node.type == "function_definition":
        return _declarator_name(field(node, "declarator"))
    return _type_name(node)


_COMMON_CONTAINERS = frozenset({
    "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef",
    "linkage_specification", "declaration_list", "field_declaration_list"})
_COMMON_STATEMENTS = frozenset({
    "expression_statement", "declaration", "return_statement", "break_statement",
    "continue_statement", "goto_statement", "field_declaration", "type_definition",
    "preproc_def", "preproc_function_def", "preproc_call", "preproc_include", "enumerator"})

C = LanguageSpec(
    name="c", grammar="c",
    functions=frozenset({"function_definition"}),
    classes=frozenset({"struct_specifier", "union_specifier", "enum_specifier"}),
    comments=frozenset({"comment"}),
    blocks=frozenset({"compound_statement", "field_declaration_list", "enumerator_list",
                      "declaration_list"}),
    statements=_COMMON_STATEMENTS,
    strings=frozenset({"string_literal", "char_literal", "system_lib_string"}),
    scope_name=_scope_name, containers=_COMMON_CONTAINERS, split_blocks=True,
    collapse=frozenset({"preproc_arg"}), fallback="cpp",
)

CPP = LanguageSpec(
    name="cpp", grammar="cpp",
    functions=frozenset({"function_definition"}),
    classes=frozenset({"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"}),
    comments=frozenset({"comment"}),
    blocks=C.blocks,
    statements=_COMMON_STATEMENTS | {
        "alias_declaration", "using_declaration", "static_assert_declaration", "throw_statement",
        "co_return_statement", "co_yield_statement", "namespace_alias_definition"},
    strings=frozenset({"string_literal", "char_literal", "raw_string_literal", "system_lib_string"}),
    scope_name=_scope_name, containers=_COMMON_CONTAINERS, split_blocks=True,
    collapse=frozenset({"preproc_arg"}),
)

register_language(C)
register_language(CPP)
