"""Rust: functions, ``impl`` blocks named by their type, and structs, enums, traits, modules.

Methods are qualified by the type of their ``impl`` (``impl Display for Wrapper<T>`` ->
``Wrapper.fmt``); ``macro_rules!`` definitions are function scopes. Closures are not scopes. A
block's tail expression (a call or a method chain without ``;``) is one logical line, like a
statement.
"""

from __future__ import annotations

from typing import Any

from .._language_spec import LanguageSpec, register_language
from ._names import field, text


def _type_name(node: Any) -> str | None:
    """``Wrapper<T>`` -> ``Wrapper``, ``fmt::Display`` -> ``Display``, ``&'a Foo`` -> ``Foo``."""
    for _ in range(8):
        if node is None:
            return None
        if node.type in ("type_identifier", "identifier", "primitive_type"):
            return text(node)
        nxt = field(node, "name") if node.type == "scoped_type_identifier" else field(node, "type")
        node = nxt if nxt is not None else next(iter(node.named_children), None)
    return None


def _scope_name(node: Any) -> str | None:
    if node.type == "impl_item":
        return _type_name(field(node, "type"))
    if node.type == "mod_item" and field(node, "body") is None:
        return None  # ``mod foo;``: the module is another file
    name = field(node, "name")
    return text(name) if name is not None else None


RUST = LanguageSpec(
    name="rust", grammar="rust",
    functions=frozenset({"function_item", "macro_definition"}),
    classes=frozenset({"impl_item", "struct_item", "enum_item", "union_item", "trait_item", "mod_item"}),
    comments=frozenset({"line_comment", "block_comment"}),
    blocks=frozenset({"block", "declaration_list", "field_declaration_list", "enum_variant_list",
                      "match_block"}),
    statements=frozenset({
        "expression_statement", "let_declaration", "use_declaration", "const_item", "static_item",
        "type_item", "field_declaration", "enum_variant", "match_arm", "attribute_item",
        "inner_attribute_item", "extern_crate_declaration", "mod_item", "function_signature_item",
        "associated_type",
        # a block's tail expression (no ``;``, so no expression_statement around it)
        "call_expression", "macro_invocation", "try_expression", "await_expression",
        "field_expression", "binary_expression", "return_expression", "struct_expression",
        "reference_expression", "unary_expression", "index_expression"}),
    strings=frozenset({"string_literal", "raw_string_literal", "char_literal"}),
    scope_name=_scope_name, containers=frozenset({"declaration_list", "foreign_mod_item"}),
    split_blocks=True,
)

register_language(RUST)
