"""JavaScript, TypeScript and TSX: declarations, methods, and functions named by what holds them.

``const f = () => {}``, ``proto.format = function () {}``, ``{ key: function () {} }`` and class
fields holding an arrow function are scopes named ``f``, ``format``, ``key``. A function nobody
names (a callback passed to ``describe`` or ``then``) is no scope: its lines belong to the scope
around it. Single and double quoted strings normalise alike.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .._language_spec import LanguageSpec, register_language
from ._names import field, text

_EXPRESSIONS = frozenset({"function", "generator_function", "arrow_function", "class"})


def _key(node: Any) -> str | None:
    """A property / variable name: ``foo``, ``'foo'`` -> ``foo``, ``[Symbol.x]`` -> ``[Symbol_x]``."""
    if node is None:
        return None
    if node.type == "string":
        inner = "".join(text(c) for c in node.named_children)
        return inner.replace(".", "_") or None
    if node.type == "member_expression":
        return _key(field(node, "property"))
    if node.type in ("identifier", "property_identifier", "private_property_identifier",
                     "type_identifier", "shorthand_property_identifier", "computed_property_name"):
        return text(node).replace(".", "_")
    return None  # a destructuring pattern names no single function


def _scope_name(node: Any) -> str | None:
    name = field(node, "name")
    if node.type not in _EXPRESSIONS or name is not None:
        return _key(name)
    parent = node.parent
    if parent is None:
        return None
    if parent.type == "variable_declarator":
        return _key(field(parent, "name"))
    if parent.type == "assignment_expression":
        return _key(field(parent, "left"))
    if parent.type == "pair":
        return _key(field(parent, "key"))
    if parent.type in ("field_definition", "public_field_definition"):
        return _key(field(parent, "property", "name"))
    return None


_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "method_definition",
                        "function", "generator_function", "arrow_function"})
_CONTAINERS = frozenset({"variable_declarator", "assignment_expression", "call_expression", "arguments",
                         "parenthesized_expression", "object", "pair", "field_definition",
                         "public_field_definition", "internal_module", "module", "new_expression",
                         "await_expression"})
_STATEMENTS = frozenset({
    "expression_statement", "lexical_declaration", "variable_declaration", "return_statement",
    "throw_statement", "import_statement", "export_statement", "break_statement",
    "continue_statement", "debugger_statement", "field_definition"})
_TS_STATEMENTS = _STATEMENTS | {"public_field_definition", "property_signature", "method_signature",
                                "abstract_method_signature", "function_signature",
                                "type_alias_declaration", "index_signature"}
_BLOCKS = frozenset({"statement_block", "class_body", "switch_body"})

JAVASCRIPT = LanguageSpec(
    name="javascript", grammar="javascript",
    functions=_FUNCTIONS,
    classes=frozenset({"class_declaration", "class"}),
    comments=frozenset({"comment"}),
    blocks=_BLOCKS,
    statements=_STATEMENTS,
    strings=frozenset({"string", "template_string"}),
    single_quotes_equal=True, scope_name=_scope_name, containers=_CONTAINERS, split_blocks=True,
)

TYPESCRIPT = LanguageSpec(
    name="typescript", grammar="typescript",
    functions=_FUNCTIONS,
    classes=frozenset({"class_declaration", "class", "abstract_class_declaration",
                       "interface_declaration", "enum_declaration"}),
    comments=frozenset({"comment"}),
    blocks=_BLOCKS | {"object_type", "enum_body"},
    statements=_TS_STATEMENTS,
    strings=frozenset({"string", "template_string"}),
    single_quotes_equal=True, scope_name=_scope_name, containers=_CONTAINERS, split_blocks=True,
)

TSX = replace(TYPESCRIPT, name="tsx", grammar="tsx")

register_language(JAVASCRIPT)
register_language(TYPESCRIPT)
register_language(TSX)
