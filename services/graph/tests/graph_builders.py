"""Terse builders for graph test fixtures (domain objects, no parsing)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from kit.domain import CallSite, ChunkKind, Import, Symbol


def sym(
    path: str, qualified_name: str, kind: ChunkKind | None = None, line: int = 1, is_test: bool = False
) -> Symbol:
    """A symbol whose id is `path#qualified_name`; kind defaults to method when the name is dotted."""
    if kind is None:
        kind = ChunkKind.METHOD if "." in qualified_name else ChunkKind.FUNCTION
    return Symbol(
        id=f"{path}#{qualified_name}",
        path=path,
        name=qualified_name.rsplit(".", 1)[-1],
        qualified_name=qualified_name,
        kind=kind,
        start_line=line,
        end_line=line + 5,
        signature=f"def {qualified_name.rsplit('.', 1)[-1]}():",
        is_test=is_test,
    )


def sid(path: str, qualified_name: str) -> str:
    return f"{path}#{qualified_name}"


@dataclass
class FileSpec:
    path: str
    symbols: list[Symbol] = field(default_factory=list)
    calls: list[CallSite] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    is_test: bool = False

    def define(self, qualified_name: str, kind: ChunkKind | None = None) -> FileSpec:
        self.symbols.append(
            sym(self.path, qualified_name, kind, line=len(self.symbols) * 10 + 1, is_test=self.is_test)
        )
        return self

    def call(self, caller: str, callee: str, receiver: str = "", line: int = 0) -> FileSpec:
        base = next(s for s in self.symbols if s.qualified_name == caller)
        self.calls.append(CallSite(base.id, callee, line or base.start_line + 1 + len(self.calls), receiver))
        return self

    def imports_(
        self, target: str, resolved_path: str = "", names: Iterable[str] = (), external: bool = False
    ) -> FileSpec:
        self.imports.append(
            Import(
                self.path,
                target,
                resolved_path,
                external or not resolved_path,
                tuple(names),
                len(self.imports) + 1,
            )
        )
        return self


def load(target, repo: str, files: Iterable[FileSpec]) -> None:
    """Replace each file on a GraphEngine or a GraphStore."""
    for f in files:
        target.replace_file(repo, f.path, f"hash-{f.path}", f.symbols, f.calls, f.imports)
