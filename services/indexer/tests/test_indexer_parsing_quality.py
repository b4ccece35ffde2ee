"""Chunking fidelity (issue 17): every named definition a user would ask about is a chunk of its own,
with its qualified name and its doc comment; one bad definition never drops the rest of its file."""

from __future__ import annotations

import textwrap

import pytest

from kit.domain import Chunk, ChunkKind
from services.indexer.domain.parsing import LARGE_CLASS_LINES, MAX_MODULE_PIECE_LINES, parse_file

K = ChunkKind


def chunks_of(path: str, source: str) -> dict[str, Chunk]:
    parsed = parse_file("r", path, textwrap.dedent(source).lstrip().encode())
    return {c.qualified_name: c for c in parsed.chunks if c.kind not in (K.MODULE, K.FILE)}


def span(chunk: Chunk) -> tuple[ChunkKind, int, int]:
    return chunk.kind, chunk.start_line, chunk.end_line


JS_PATTERNS = """
/**
 * The response type.
 */
res.contentType = res.type = function contentType (type) {
  return this.set('Content-Type', type)
}

defineGetter(req, 'ip', function ip () {
  return this.socket.remoteAddress
})

Object.defineProperty(req, 'host', {
  get () {
    return this.headers.host
  }
})

/** Sets the status code. */
Reply.prototype.code = function (code) {
  this.statusCode = code
  return this
}

exports.send = function (x) {
  return x
}

const add = (a, b) => a + b

module.exports = {
  listen () {
    return 1
  },
  close: function () {
    return 2
  }
}

function outer () {
  return function hookRunner (a) {
    return a
  }
}
"""


@pytest.mark.parametrize(
    ("qualified", "expected"),
    [
        ("contentType", (K.FUNCTION, 1, 6)),  # chained assignment, with its JSDoc
        ("ip", (K.FUNCTION, 8, 10)),  # a getter defined through a helper
        ("host", (K.FUNCTION, 12, 16)),  # Object.defineProperty(obj, 'host', {get () {…}})
        ("host.get", (K.FUNCTION, 13, 15)),
        ("Reply.code", (K.METHOD, 18, 22)),  # prototype assignment: a method of Reply
        ("send", (K.FUNCTION, 24, 26)),  # exports.x = function
        ("add", (K.FUNCTION, 28, 28)),  # arrow function assigned to a const
        ("listen", (K.FUNCTION, 31, 33)),  # object literal members of module.exports
        ("close", (K.FUNCTION, 34, 36)),
        ("outer.hookRunner", (K.FUNCTION, 40, 42)),  # a named function returned by a factory
    ],
)
def test_javascript_definition_patterns_are_chunks_of_their_own(qualified: str, expected: tuple) -> None:
    chunks = chunks_of("lib/reply.js", JS_PATTERNS)
    assert span(chunks[qualified]) == expected


def test_javascript_doc_comments_stay_with_their_definition_not_the_module_chunk() -> None:
    source = "const a = require('a')\nconst b = a.make()\nsetup(b)\n" + JS_PATTERNS
    parsed = parse_file("r", "lib/reply.js", source.encode())
    module = [c for c in parsed.chunks if c.kind is K.MODULE]
    assert module and all("The response type" not in c.content for c in module)
    code = next(c for c in parsed.chunks if c.qualified_name == "Reply.code")
    assert code.content.startswith("/** Sets the status code. */") and code.doc == "Sets the status code."


def test_module_exports_named_function_is_named_after_the_function() -> None:
    chunks = chunks_of("lib/noop.js", "module.exports = function noopSet () {\n  return 1\n}\n")
    assert list(chunks) == ["noopSet"]


def test_typescript_overloads_join_the_implementation_and_interface_members_are_chunks() -> None:
    chunks = chunks_of(
        "src/f.ts",
        """
        /** Doc of f */
        export function f(a: string): string;
        export function f(a: number): number;
        export function f(a: any): any {
          return a;
        }

        export class C {
          private y = 1;
          get value(): number { return this.y; }
          run = () => 1;
        }

        export interface I {
          /** go doc */
          go(): void;
        }

        declare function g(x: number): void;
        """,
    )
    assert span(chunks["f"]) == (K.FUNCTION, 1, 6) and chunks["f"].doc == "Doc of f"
    assert span(chunks["C"]) == (K.CLASS, 8, 12)
    assert span(chunks["C.value"]) == (K.METHOD, 10, 10)
    assert span(chunks["C.run"]) == (K.METHOD, 11, 11)
    assert span(chunks["I.go"]) == (K.METHOD, 15, 16) and chunks["I.go"].doc == "go doc"
    assert span(chunks["g"]) == (K.FUNCTION, 19, 19)


def test_python_decorators_properties_and_inner_classes() -> None:
    chunks = chunks_of(
        "m.py",
        """
        class A:
            @property
            def x(self):
                \"\"\"The x.\"\"\"
                return self._x

            @x.setter
            def x(self, v):
                self._x = v

            @staticmethod
            @cache
            def build():
                return A()

            class Inner:
                def go(self):
                    return 1
        """,
    )
    assert span(chunks["A.x"]) == (K.METHOD, 2, 9)  # getter and setter: one property chunk
    assert chunks["A.x"].doc == "The x."
    assert span(chunks["A.build"]) == (K.METHOD, 11, 14)  # starts at its first decorator
    assert span(chunks["A.Inner.go"]) == (K.METHOD, 17, 18)


def test_large_functions_become_an_outline_beside_their_nested_functions() -> None:
    body = "\n".join(f"    step_{i}()" for i in range(LARGE_CLASS_LINES))
    source = f"def outer():\n    def helper():\n        return 'nested body'\n{body}\n    return helper()\n"
    chunks = chunks_of("m.py", source)
    assert span(chunks["outer.helper"]) == (K.FUNCTION, 2, 3)
    assert "nested body" not in chunks["outer"].content and "    def helper()\n" in chunks["outer"].content


def test_go_methods_are_qualified_by_their_receiver_type() -> None:
    chunks = chunks_of(
        "m.go",
        """
        package m

        // Area of the shape.
        func (s *Square) Area() float64 {
            return s.w * s.w
        }

        func (s Square) Name() string { return "sq" }
        """,
    )
    assert (
        span(chunks["Square.Area"]) == (K.METHOD, 3, 6) and chunks["Square.Area"].doc == "Area of the shape."
    )
    assert span(chunks["Square.Name"]) == (K.METHOD, 8, 8)


def test_rust_impl_and_trait_impl_methods_and_trait_signatures() -> None:
    chunks = chunks_of(
        "m.rs",
        """
        trait Shape {
            fn area(&self) -> f64;
        }

        impl P {
            /// Make one.
            pub fn new() -> Self { P }
        }

        impl Display for P {
            fn fmt(&self, f: &mut Formatter) -> Result { Ok(()) }
        }
        """,
    )
    assert span(chunks["Shape.area"]) == (K.METHOD, 2, 2)
    assert span(chunks["P.new"]) == (K.METHOD, 6, 7) and chunks["P.new"].doc == "Make one."
    assert span(chunks["P.fmt"]) == (K.METHOD, 11, 11)


def test_java_inner_classes_and_annotated_methods() -> None:
    chunks = chunks_of(
        "Outer.java",
        """
        public class Outer {
            public static class Inner {
                void run() {}
            }
            /** Doc. */
            @Override
            public String toString() { return ""; }
        }
        """,
    )
    assert span(chunks["Outer.Inner"]) == (K.CLASS, 2, 4)
    assert span(chunks["Outer.Inner.run"]) == (K.METHOD, 3, 3)
    assert span(chunks["Outer.toString"]) == (K.METHOD, 5, 7) and chunks["Outer.toString"].doc == "Doc."


def test_module_residue_is_split_into_small_pieces() -> None:
    residue = "\n".join(f"CONFIG_{i} = load({i})" for i in range(3 * MAX_MODULE_PIECE_LINES))
    parsed = parse_file("r", "m.py", (residue + "\n\ndef f():\n    return 1\n").encode())
    pieces = [c for c in parsed.chunks if c.kind is K.MODULE]
    assert len(pieces) >= 3
    assert all(c.end_line - c.start_line + 1 <= MAX_MODULE_PIECE_LINES for c in pieces)


def test_a_minified_file_with_an_unnamed_definition_keeps_every_other_definition() -> None:
    minified = (
        b'var a={"":function(){return 1},ok:function(){return 2}};'
        b"function good(){return a.ok()}function better(){return good()}\n"
    )
    parsed = parse_file("r", "vendor/lib.js", minified)  # vendored, minified, not named .min.js
    names = {c.qualified_name for c in parsed.chunks}
    assert {"ok", "good", "better"} <= names
    assert all(c.name and c.qualified_name for c in parsed.chunks)  # what the graph requires of a symbol
    assert len({c.id for c in parsed.chunks}) == len(parsed.chunks)
    assert any("without a usable name" in warning for warning in parsed.warnings)
    caller_ids = {c.id for c in parsed.chunks}
    assert all(site.caller_id in caller_ids and site.callee_name for site in parsed.call_sites)


def test_object_literal_assigned_to_a_prototype_gives_methods_of_that_constructor() -> None:
    chunks = chunks_of(
        "lib/foo.js",
        """
        Foo.prototype = {
          bar () {
            return 1
          },
          baz: function () {
            return 2
          }
        }
        """,
    )
    assert span(chunks["Foo.bar"]) == (K.METHOD, 2, 4) and chunks["Foo.bar"].parent == "Foo"
    assert span(chunks["Foo.baz"]) == (K.METHOD, 5, 7)
