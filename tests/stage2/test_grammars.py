"""The Multi-SWE-bench languages (C, C++, Go, JavaScript, TypeScript/TSX, Rust) in stage II:
a small diff of each, parsed without the repository, gets its scope from the syntax tree and
its changed lines without comments; whole files give the scopes a reader would name."""

from __future__ import annotations

import pytest

from benchchecker_plugin.repos import detect_language
from benchchecker_plugin.stage2 import get_language, language_names, normalize_code, parse_patch, parse_source


def _only_block(diff: str):  # noqa: ANN202
    blocks = parse_patch(diff, instance_id="t-1")
    assert len(blocks) == 1, blocks
    return blocks[0]


C_DIFF = """\
diff --git a/lib/common/zstd_common.c b/lib/common/zstd_common.c
index 1111111..2222222 100644
--- a/lib/common/zstd_common.c
+++ b/lib/common/zstd_common.c
@@ -40,6 +40,7 @@ unsigned ZSTD_versionNumber(void) { return ZSTD_VERSION_NUMBER; }
 static size_t
 ZSTD_checkLimit(size_t size, size_t limit)
 {
-    if (size > limit) return ERROR(srcSize_wrong);
+    /* the limit itself is allowed */
+    if (size > limit + 1) return ERROR(srcSize_wrong);  /* see #1234 */
     return 0;
 }
"""


def test_c_function_named_from_its_declarator_and_comments_dropped() -> None:
    block = _only_block(C_DIFF)
    assert block.language == "c"
    assert (block.scope, block.scope_from) == ("ZSTD_checkLimit", "tree")
    assert [ln.text for ln in block.added] == ["if ( size > limit + 1 ) return ERROR ( srcSize_wrong ) ;"]
    assert [ln.text for ln in block.removed] == [
        "if ( size > limit ) return ERROR ( srcSize_wrong ) ;"]


def test_c_pointer_declarators_typedef_structs_and_macros() -> None:
    src = """#define CHECK(c) \\
    do { if (!(c)) return -1; } \\
    while (0)
typedef struct { int level; } ZSTD_params;
static int *(*get_handler(int sig))(int) { return 0; }
#ifdef ZSTD_MULTITHREAD
struct pool { int size; /* threads */ };
#endif
"""
    parsed = parse_source(src, "c")
    assert [(s.qualname, s.kind) for s in parsed.scopes] == [
        ("ZSTD_params", "class"), ("get_handler", "function"), ("pool", "class")]
    lines = [ln.text for ln in parsed.lines]
    # the macro is one line, its body's spaces normalised
    assert lines[0] == "#define CHECK ( c ) do { if (!(c)) return -1; } while (0)"
    assert "struct pool { int size ; } ;" in lines


def test_a_cpp_header_named_h_is_read_with_the_cpp_grammar() -> None:
    """``.h`` is C by extension; a header that only C++ parses falls back to the C++ grammar."""
    assert detect_language("include/fmt/core.h") == "c"
    cpp_header = ("namespace fmt {\ntemplate <typename T> class buffer {\n public:\n"
                  "  T* data() { return ptr_; }\n};\n}\n")
    assert parse_source(cpp_header, "c").spec.name == "cpp"
    assert parse_source("int add(int a, int b) { return a + b; }\n", "c").spec.name == "c"


CPP_DIFF = """\
diff --git a/include/fmt/format.h b/include/fmt/format.h
index 1111111..2222222 100644
--- a/include/fmt/format.h
+++ b/include/fmt/format.h
@@ -100,8 +100,8 @@ namespace detail {
 template <typename Char>
 class buffer {
  public:
   // Returns the size.
   size_t size() const noexcept {
-    return size_;
+    return size_ + offset_;  // counted from the start
   }
 };
"""


def test_cpp_method_inside_a_template_class() -> None:
    block = _only_block(CPP_DIFF)
    assert (block.scope, block.scope_from) == ("buffer.size", "tree")
    assert [ln.text for ln in block.added] == ["return size_ + offset_ ;"]


def test_cpp_out_of_class_definitions_are_qualified() -> None:
    src = """namespace nlohmann {
template<typename BasicJsonType>
void lexer<BasicJsonType>::scan_string(int c)
{
    // a comment
    auto f = [&](int x) {
        return x + c;
    };
}
}
"""
    parsed = parse_source(src, "cpp")
    assert [s.qualname for s in parsed.scopes] == ["lexer.scan_string"]
    assert parsed.enclosing(6).qualname == "lexer.scan_string"  # a lambda is no scope of its own
    lines = [ln.text for ln in parsed.lines_in(parsed.scopes[0])]
    assert "auto f = [ & ] ( int x ) {" in lines and "return x + c ;" in lines  # the lambda body stays lines
    assert not any("comment" in ln for ln in lines)


GO_DIFF = """\
diff --git a/server.go b/server.go
index 1111111..2222222 100644
--- a/server.go
+++ b/server.go
@@ -20,5 +20,8 @@ func (s *Server) Serve(lis net.Listener) error {
 func (s *Server) Stop() {
 \ts.mu.Lock()
-\tdefer s.mu.Unlock()
+\t// unlock once the queue is drained
+\tdefer func() {
+\t\ts.mu.Unlock()
+\t}()
 \ts.quit.Fire()
 }
"""


def test_go_method_named_by_its_receiver_and_closure_body_kept_as_lines() -> None:
    block = _only_block(GO_DIFF)
    assert block.language == "go"
    assert (block.scope, block.scope_from) == ("Server.Stop", "tree")
    assert [ln.text for ln in block.added] == ["defer func ( ) {", "s . mu . Unlock ( )", "} ( )"]
    assert [ln.text for ln in block.removed] == ["defer s . mu . Unlock ( )"]


def test_go_types_and_generic_receivers() -> None:
    src = """package list

// List is a list.
type List[T any] struct {
\titems []T
}

func (l *List[T]) Push(v T) { l.items = append(l.items, v) }

func New[T any]() *List[T] { return &List[T]{} }
"""
    parsed = parse_source(src, "go")
    assert [(s.qualname, s.kind) for s in parsed.scopes] == [
        ("List", "class"), ("List.Push", "function"), ("New", "function")]
    assert "// List is a list." not in " ".join(normalize_code(src, "go"))


JS_DIFF = """\
diff --git a/src/plugin/advancedFormat/index.js b/src/plugin/advancedFormat/index.js
index 1111111..2222222 100644
--- a/src/plugin/advancedFormat/index.js
+++ b/src/plugin/advancedFormat/index.js
@@ -1,7 +1,8 @@
 export default (o, c) => {
   const proto = c.prototype
   proto.format = function (formatStr) {
-    const str = formatStr || 'YYYY'
+    // the default template
+    const str = formatStr || 'YYYY-MM-DDTHH:mm:ssZ'
     return str
   }
 }
"""


def test_javascript_function_named_by_the_property_it_is_assigned_to() -> None:
    block = _only_block(JS_DIFF)
    assert block.language == "javascript"
    assert (block.scope, block.scope_from) == ("format", "tree")
    assert [ln.text for ln in block.added] == ['const str = formatStr || "YYYY-MM-DDTHH:mm:ssZ"']


def test_javascript_scopes_arrow_functions_and_anonymous_callbacks() -> None:
    src = """const pad = (n) => {
  return String(n)
}
class Locale {
  name = () => 'en'
  format(d) { return pad(d) }
}
describe('pad', () => {
  it('pads', () => {
    expect(pad(1)).toBe("1") // same quotes either way
  })
})
"""
    parsed = parse_source(src, "javascript")
    assert [s.qualname for s in parsed.scopes] == ["pad", "Locale", "Locale.name", "Locale.format"]
    assert parsed.enclosing(9) is None  # inside anonymous callbacks only: module level
    module = [ln.text for ln in parsed.lines_in(None)]
    assert 'expect ( pad ( 1 ) ) . toBe ( "1" )' in module  # the callback's body is lines, not one line
    assert "return String ( n )" not in module  # pad's body belongs to pad


TS_DIFF = """\
diff --git a/src/generators/theme.ts b/src/generators/theme.ts
index 1111111..2222222 100644
--- a/src/generators/theme.ts
+++ b/src/generators/theme.ts
@@ -5,6 +5,7 @@ import {Theme} from '../definitions';
 export class ThemeEngine {
     private mode: number = 1;
     public apply(doc: Document): void {
+        /* dark by default */ this.mode = 2;
         doc.body.classList.add('dark');
     }
 }
"""


def test_typescript_method_in_an_exported_class() -> None:
    block = _only_block(TS_DIFF)
    assert block.language == "typescript"
    assert (block.scope, block.scope_from) == ("ThemeEngine.apply", "tree")
    assert [ln.text for ln in block.added] == ["this . mode = 2 ;"]


def test_tsx_uses_the_tsx_grammar() -> None:
    src = """interface Props { dark: boolean }
export const Toggle = ({dark}: Props) => {
    return <button className={dark ? 'on' : 'off'}>{/* icon */}toggle</button>;
};
"""
    parsed = parse_source(src, detect_language("src/ui/toggle.tsx"))
    assert parsed.spec.grammar == "tsx" and not parsed.tree.root_node.has_error
    assert [(s.qualname, s.kind) for s in parsed.scopes] == [("Props", "class"), ("Toggle", "function")]


RUST_DIFF = """\
diff --git a/src/searcher.rs b/src/searcher.rs
index 1111111..2222222 100644
--- a/src/searcher.rs
+++ b/src/searcher.rs
@@ -10,6 +10,10 @@ use memchr::memmem;
 impl<'a> Searcher<'a> {
     /// Searches the haystack.
     pub fn search(&self, haystack: &[u8]) -> Option<usize> {
-        self.finder.find(haystack)
+        // empty haystacks never match
+        let found = haystack.iter().position(|b| {
+            *b == self.needle
+        });
+        found
     }
 }
"""


def test_rust_method_named_by_its_impl_type_and_closure_body_kept_as_lines() -> None:
    block = _only_block(RUST_DIFF)
    assert block.language == "rust"
    assert (block.scope, block.scope_from) == ("Searcher.search", "tree")
    assert [ln.text for ln in block.added] == [
        "let found = haystack . iter ( ) . position ( | b | {", "* b == self . needle", "} ) ;", "found"]
    assert [ln.text for ln in block.removed] == ["self . finder . find ( haystack )"]


def test_rust_items_traits_modules_and_macros() -> None:
    src = """/// Doc comment.
pub trait Sink { fn write(&mut self) -> bool { true } }
impl fmt::Display for Wrapper<T> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}",
               self.0)
    }
}
mod tests;
#[cfg(test)]
mod unit {
    #[test]
    fn it_works() {}
}
macro_rules! square { ($x:expr) => { $x * $x }; }
"""
    parsed = parse_source(src, "rust")
    assert [s.qualname for s in parsed.scopes] == [
        "Sink", "Sink.write", "Wrapper", "Wrapper.fmt", "unit", "unit.it_works", "square"]
    fmt = parsed.find("Wrapper.fmt")[0]
    assert 'write ! ( f , "{}" , self . 0 )' in [ln.text for ln in parsed.lines_in(fmt)]
    assert not any("Doc comment" in ln for ln in normalize_code(src, "rust"))


@pytest.mark.parametrize(("path", "language"), [
    ("a.c", "c"), ("a.h", "c"), ("a.cc", "cpp"), ("a.cpp", "cpp"), ("a.cxx", "cpp"), ("a.hpp", "cpp"),
    ("a.hh", "cpp"), ("a.hxx", "cpp"), ("a.go", "go"), ("a.js", "javascript"), ("a.mjs", "javascript"),
    ("a.cjs", "javascript"), ("a.jsx", "javascript"), ("a.ts", "typescript"), ("a.tsx", "tsx"),
    ("a.rs", "rust"),
])
def test_every_multi_swe_bench_extension_has_a_registered_language(path: str, language: str) -> None:
    assert detect_language(path) == language
    assert get_language(language) is not None and language in language_names()
