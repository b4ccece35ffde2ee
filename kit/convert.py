"""Domain ⇄ protobuf conversion for the shared types (the one place that knows both shapes)."""

from __future__ import annotations

from kit.domain import CallSite, Chunk, ChunkKind, Import, Symbol
from reporecall.common.v1 import common_pb2

_KIND_TO_PB = {kind: common_pb2.ChunkKind.Value(f"CHUNK_KIND_{kind.name}") for kind in ChunkKind}
_KIND_FROM_PB = {value: kind for kind, value in _KIND_TO_PB.items()}


def kind_to_pb(kind: ChunkKind) -> int:
    return _KIND_TO_PB[kind]


def kind_from_pb(value: int) -> ChunkKind:
    try:
        return _KIND_FROM_PB[value]
    except KeyError:
        raise ValueError(f"kind: unknown chunk kind {value}") from None


def chunk_to_pb(chunk: Chunk) -> common_pb2.Chunk:
    return common_pb2.Chunk(
        id=chunk.id,
        repo=chunk.repo,
        path=chunk.path,
        language=chunk.language,
        kind=kind_to_pb(chunk.kind),
        name=chunk.name,
        qualified_name=chunk.qualified_name,
        parent=chunk.parent,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        signature=chunk.signature,
        doc=chunk.doc,
        content=chunk.content,
        content_hash=chunk.content_hash,
        is_test=chunk.is_test,
    )


def chunk_from_pb(message: common_pb2.Chunk) -> Chunk:
    return Chunk(
        id=message.id,
        repo=message.repo,
        path=message.path,
        language=message.language,
        kind=kind_from_pb(message.kind),
        name=message.name,
        qualified_name=message.qualified_name,
        parent=message.parent,
        start_line=message.start_line,
        end_line=message.end_line,
        signature=message.signature,
        doc=message.doc,
        content=message.content,
        content_hash=message.content_hash,
        is_test=message.is_test,
    )


def symbol_to_pb(symbol: Symbol) -> common_pb2.Symbol:
    return common_pb2.Symbol(
        id=symbol.id,
        path=symbol.path,
        name=symbol.name,
        qualified_name=symbol.qualified_name,
        kind=kind_to_pb(symbol.kind),
        start_line=symbol.start_line,
        end_line=symbol.end_line,
        signature=symbol.signature,
        is_test=symbol.is_test,
    )


def symbol_from_pb(message: common_pb2.Symbol) -> Symbol:
    return Symbol(
        id=message.id,
        path=message.path,
        name=message.name,
        qualified_name=message.qualified_name,
        kind=kind_from_pb(message.kind),
        start_line=message.start_line,
        end_line=message.end_line,
        signature=message.signature,
        is_test=message.is_test,
    )


def call_site_to_pb(site: CallSite) -> common_pb2.CallSite:
    return common_pb2.CallSite(
        caller_id=site.caller_id, callee_name=site.callee_name, line=site.line, receiver=site.receiver
    )


def call_site_from_pb(message: common_pb2.CallSite) -> CallSite:
    return CallSite(message.caller_id, message.callee_name, message.line, message.receiver)


def import_to_pb(item: Import) -> common_pb2.Import:
    return common_pb2.Import(
        path=item.path,
        target=item.target,
        resolved_path=item.resolved_path,
        external=item.external,
        names=list(item.names),
        line=item.line,
    )


def import_from_pb(message: common_pb2.Import) -> Import:
    return Import(
        path=message.path,
        target=message.target,
        resolved_path=message.resolved_path,
        external=message.external,
        names=tuple(message.names),
        line=message.line,
    )
