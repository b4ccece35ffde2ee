"""Domain types shared by the indexer, search and graph services. Pure data: no I/O, no gRPC."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class ChunkKind(StrEnum):
    FUNCTION = "function"
    METHOD = "method"
    CLASS = "class"
    INTERFACE = "interface"
    ENUM = "enum"
    TYPE = "type"
    MODULE = "module"
    FILE = "file"


@dataclass(frozen=True, slots=True)
class Chunk:
    """One definition (or piece of a file) with its text. See protos/reporecall/common/v1/common.proto."""

    id: str
    repo: str
    path: str
    language: str
    kind: ChunkKind
    name: str
    qualified_name: str
    start_line: int
    end_line: int
    content: str
    content_hash: str
    parent: str = ""
    signature: str = ""
    doc: str = ""
    is_test: bool = False

    def symbol(self) -> Symbol:
        return Symbol(
            id=self.id,
            path=self.path,
            name=self.name,
            qualified_name=self.qualified_name,
            kind=self.kind,
            start_line=self.start_line,
            end_line=self.end_line,
            signature=self.signature,
            is_test=self.is_test,
        )


@dataclass(frozen=True, slots=True)
class Symbol:
    """A definition as the graph sees it: a chunk without its text."""

    id: str
    path: str
    name: str
    qualified_name: str
    kind: ChunkKind
    start_line: int
    end_line: int
    signature: str = ""
    is_test: bool = False


@dataclass(frozen=True, slots=True)
class CallSite:
    """A call by name from inside a chunk; `receiver` is what stood before the dot, if anything."""

    caller_id: str
    callee_name: str
    line: int
    receiver: str = ""


@dataclass(frozen=True, slots=True)
class Import:
    """An import of `path`; `resolved_path` is the repo file it names, empty when external/unknown."""

    path: str
    target: str
    resolved_path: str = ""
    external: bool = False
    names: tuple[str, ...] = field(default_factory=tuple)
    line: int = 0
