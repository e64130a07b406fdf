"""Go: functions, methods named ``Receiver.Method``, and named types as class scopes.

A method's receiver type (``func (s *Server) Serve()`` -> ``Server.Serve``) stands in for the
class a Java method would sit in, whichever file of the package defines it. Function literals
are not scopes: a closure's lines belong to the function around it.
"""

from __future__ import annotations

from typing import Any

from .._language_spec import LanguageSpec, register_language
from ._names import field, text


def _receiver_type(node: Any) -> str | None:
    """``(s *List[T])`` -> ``List``."""
    params = field(node, "receiver")
    decl = next((c for c in params.named_children if c.type == "parameter_declaration"), None) \
        if params is not None else None
    typ = field(decl, "type") if decl is not None else None
    for _ in range(8):
        if typ is None:
            return None
        if typ.type == "type_identifier":
            return text(typ)
        typ = field(typ, "type") or next(iter(typ.named_children), None)  # pointer / generic type
    return None


def _scope_name(node: Any) -> str | None:
    name = field(node, "name")
    if name is None:
        return None
    if node.type == "method_declaration":
        owner = _receiver_type(node)
        return f"{owner}.{text(name)}" if owner else text(name)
    return text(name)


GO = LanguageSpec(
    name="go", grammar="go",
    functions=frozenset({"function_declaration", "method_declaration"}),
    classes=frozenset({"type_spec"}),
    comments=frozenset({"comment"}),
    blocks=frozenset({"block", "field_declaration_list", "interface_type", "import_spec_list"}),
    statements=frozenset({
        "expression_statement", "short_var_declaration", "assignment_statement", "return_statement",
        "go_statement", "defer_statement", "inc_statement", "dec_statement", "send_statement",
        "var_spec", "const_spec", "import_spec", "package_clause", "break_statement",
        "continue_statement", "goto_statement", "fallthrough_statement", "field_declaration",
        "method_spec", "type_spec"}),
    strings=frozenset({"interpreted_string_literal", "raw_string_literal", "rune_literal"}),
    scope_name=_scope_name, split_blocks=True,
)

register_language(GO)
