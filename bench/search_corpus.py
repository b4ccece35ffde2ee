"""Chunks synthesised from real code (the Python standard library) for benchmarks. Not used by the service."""

from __future__ import annotations

import ast
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import xxhash

from kit.domain import Chunk, ChunkKind


def _signature(lines: list[str], node: ast.AST) -> str:
    first = node.lineno - 1  # type: ignore[attr-defined]
    body_start = node.body[0].lineno - 1 if getattr(node, "body", None) else first + 1  # type: ignore[attr-defined]
    return "\n".join(lines[first : max(first + 1, min(body_start, first + 4))]).strip()


def stdlib_chunks(repo: str = "stdlib", limit: int = 20_000, root: Path | None = None) -> Iterator[Chunk]:
    """Functions, methods and classes of the stdlib, as the indexer would emit them (roughly)."""
    root = root or Path(sysconfig.get_paths()["stdlib"])
    produced = 0
    # A stable pseudo-random file order, so a limited sample spans the whole library.
    files = sorted(root.rglob("*.py"), key=lambda f: xxhash.xxh3_64_intdigest(f.as_posix().encode()))
    for file in files:
        rel = file.relative_to(root).as_posix()
        if "site-packages" in rel or "/lib2to3/tests/data" in rel or rel.startswith("test/bad"):
            continue
        try:
            source = file.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        lines = source.splitlines()
        is_test = rel.startswith(("test/", "unittest/test/", "idlelib/idle_test/")) or "/test_" in rel
        ordinals: dict[str, int] = {}

        def visit(
            node: ast.AST, parent: str, lines=lines, rel=rel, is_test=is_test, ordinals=ordinals
        ) -> Iterator[Chunk]:
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    continue
                qualified = f"{parent}.{child.name}" if parent else child.name
                if isinstance(child, ast.ClassDef):
                    kind = ChunkKind.CLASS
                else:
                    kind = ChunkKind.METHOD if parent else ChunkKind.FUNCTION
                end = child.end_lineno or child.lineno
                content = "\n".join(lines[child.lineno - 1 : end])
                if isinstance(child, ast.ClassDef) and end - child.lineno > 60:
                    content = "\n".join(lines[child.lineno - 1 : child.lineno + 20])
                ordinal = ordinals.get(qualified, 0)
                ordinals[qualified] = ordinal + 1
                yield Chunk(
                    id=f"{rel}#{qualified}#{ordinal}",
                    repo=repo,
                    path=rel,
                    language="python",
                    kind=kind,
                    name=child.name,
                    qualified_name=qualified,
                    parent=parent,
                    start_line=child.lineno,
                    end_line=end,
                    signature=_signature(lines, child),
                    doc=ast.get_docstring(child) or "",
                    content=content,
                    content_hash=xxhash.xxh3_64_hexdigest(content.encode()),
                    is_test=is_test,
                )
                if isinstance(child, ast.ClassDef):
                    yield from visit(child, qualified)

        for chunk in visit(tree, ""):
            yield chunk
            produced += 1
            if produced >= limit:
                return
