"""MemoryService over grpc.aio: proto ⇄ domain, domain errors → status codes. Nothing else.

Who may call: the gateway only (the suite's service credentials, checked by kit's server interceptor). The
`user` and `admin` fields of every request are the gateway's authenticated principal, never a client's
field; the engine decides from them what the caller may see and change (domain/ownership.py).

Engine calls block (file I/O under locks, SQLite), so they run in a bounded thread pool.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from kit.engine_calls import EngineCalls
from reporecall.memory.v1 import memory_pb2, memory_pb2_grpc

from .domain.errors import InvalidField, MemoryNotFound, NotAllowed, ReadOnlyMemory
from .domain.model import Memory, MemoryClass, MemoryType, Scope, Status
from .engine import MemoryDraft, MemoryEngine, Observation, RecallQuery

SERVICE_NAME = memory_pb2.DESCRIPTOR.services_by_name["MemoryService"].full_name
MAX_EPISODE_AGE_DAYS = 36_500  # a century; larger values overflow timedelta and mean nothing
T = TypeVar("T")

_TYPE_TO_PB = {t: memory_pb2.MemoryType.Value(f"MEMORY_TYPE_{t.name}") for t in MemoryType}
_CLASS_TO_PB = {c: memory_pb2.MemoryClass.Value(f"MEMORY_CLASS_{c.name}") for c in MemoryClass}
_SCOPE_TO_PB = {s: memory_pb2.MemoryScope.Value(f"MEMORY_SCOPE_{s.name}") for s in Scope}
_STATUS_TO_PB = {s: memory_pb2.MemoryStatus.Value(f"MEMORY_STATUS_{s.name}") for s in Status}
_TYPE_FROM_PB = {v: k for k, v in _TYPE_TO_PB.items()}
_CLASS_FROM_PB = {v: k for k, v in _CLASS_TO_PB.items()}
_SCOPE_FROM_PB = {v: k for k, v in _SCOPE_TO_PB.items()}
_STATUS_FROM_PB = {v: k for k, v in _STATUS_TO_PB.items()}


def _from_pb(value: int, table: dict[int, Any], field: str) -> Any:
    """An enum value, None for *_UNSPECIFIED (= use the default); unknown numbers are bad input."""
    if value == 0:
        return None
    try:
        return table[value]
    except KeyError:
        raise InvalidField(field, f"{value} is not a known value") from None


def _timestamp(value: Any) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(value)
    return stamp


def memory_to_pb(memory: Memory) -> memory_pb2.Memory:
    message = memory_pb2.Memory(
        id=memory.id,
        name=memory.name,
        description=memory.description,
        type=_TYPE_TO_PB[memory.type],
        scope=_SCOPE_TO_PB[memory.scope],
        status=_STATUS_TO_PB[memory.status],
        pinned=memory.pinned,
        confidence=memory.confidence,
        fingerprint=memory.fingerprint,
        supersedes=list(memory.supersedes),
        reason=memory.reason,
        related_files=list(memory.related_files),
        related_symbols=list(memory.related_symbols),
        body=memory.body,
        branch=memory.branch,
        user=memory.user,
        source=memory.source.value,
        created=_timestamp(memory.created),
        updated=_timestamp(memory.updated),
        repo=memory.repo,
    )
    message.memory_class = _CLASS_TO_PB[memory.memory_class]
    return message


def draft_from_pb(message: memory_pb2.Memory) -> MemoryDraft:
    """Store's input. Confidence 0 means "not given" (proto3 cannot tell 0 from unset)."""
    return MemoryDraft(
        repo=message.repo,
        body=message.body,
        id=message.id,
        name=message.name,
        description=message.description,
        type=_from_pb(message.type, _TYPE_FROM_PB, "memory.type"),
        memory_class=_from_pb(message.memory_class, _CLASS_FROM_PB, "memory.memory_class"),
        scope=_from_pb(message.scope, _SCOPE_FROM_PB, "memory.scope"),
        status=_from_pb(message.status, _STATUS_FROM_PB, "memory.status"),
        pinned=message.pinned,
        confidence=message.confidence or None,
        supersedes=tuple(message.supersedes),
        reason=message.reason,
        related_files=tuple(message.related_files),
        related_symbols=tuple(message.related_symbols),
        branch=message.branch,
        user=message.user,
    )


class MemoryServicer(memory_pb2_grpc.MemoryServiceServicer):
    def __init__(self, engine: MemoryEngine, workers: int = 4) -> None:
        self._engine = engine
        self._calls = EngineCalls(
            "memory",
            workers,
            {
                InvalidField: grpc.StatusCode.INVALID_ARGUMENT,
                MemoryNotFound: grpc.StatusCode.NOT_FOUND,
                NotAllowed: grpc.StatusCode.PERMISSION_DENIED,
                ReadOnlyMemory: grpc.StatusCode.FAILED_PRECONDITION,
            },
        )
        self._claude_attached: set[str] = set()

    def close(self) -> None:
        self._calls.close()

    async def _convert(self, context: grpc.aio.ServicerContext, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except InvalidField as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        raise AssertionError("unreachable: context.abort raises")

    async def Store(self, request: memory_pb2.StoreRequest, context: grpc.aio.ServicerContext) -> Any:
        if not request.HasField("memory"):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "memory: is required")
        draft = await self._convert(context, lambda: draft_from_pb(request.memory))
        memory = await self._calls.run(context, self._engine.store, draft, admin=request.admin)
        return memory_pb2.StoreResponse(memory=memory_to_pb(memory))

    async def Recall(self, request: memory_pb2.RecallRequest, context: grpc.aio.ServicerContext) -> Any:
        classes = await self._convert(
            context,
            lambda: frozenset(
                c for c in (_from_pb(v, _CLASS_FROM_PB, "classes") for v in request.classes) if c is not None
            ),
        )
        query = RecallQuery(
            repo=request.repo,
            query=request.query,
            branch=request.branch,
            user=request.user,
            classes=classes,
            budget_tokens=request.budget_tokens,
            limit=request.limit,
            include_inactive=request.include_inactive,
        )
        if request.repo_path and request.repo not in self._claude_attached:
            self._claude_attached.add(request.repo)  # once per repo; the watcher follows later edits
            path = Path(request.repo_path)
            if path.is_absolute():
                await self._calls.run(context, self._engine.attach_claude_memory, request.repo, path)
        result = await self._calls.run(context, self._engine.recall, query)
        return memory_pb2.RecallResponse(
            memories=[
                memory_pb2.RecalledMemory(memory=memory_to_pb(r.memory), score=r.score, tokens=r.tokens)
                for r in result.memories
            ],
            tokens=result.tokens,
        )

    async def Forget(self, request: memory_pb2.ForgetRequest, context: grpc.aio.ServicerContext) -> Any:
        forgotten = await self._calls.run(
            context, self._engine.forget, request.repo, request.id, user=request.user, admin=request.admin
        )
        return memory_pb2.ForgetResponse(forgotten=forgotten)

    async def List(self, request: memory_pb2.ListRequest, context: grpc.aio.ServicerContext) -> Any:
        memories = await self._calls.run(
            context,
            self._engine.list_memories,
            request.repo,
            user=request.user,
            branch=request.branch,
            include_inactive=request.include_inactive,
            limit=request.limit,
        )
        return memory_pb2.ListResponse(memories=[memory_to_pb(m) for m in memories])

    async def Compact(self, request: memory_pb2.CompactRequest, context: grpc.aio.ServicerContext) -> Any:
        if not 0 <= request.episode_max_age_days <= MAX_EPISODE_AGE_DAYS:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"episode_max_age_days: must be between 0 and {MAX_EPISODE_AGE_DAYS}",
            )
        max_age = timedelta(days=request.episode_max_age_days) if request.episode_max_age_days else None
        result = await self._calls.run(
            context, self._engine.compact, request.repo, max_age, user=request.user, admin=request.admin
        )
        return memory_pb2.CompactResponse(superseded=result.superseded, archived=result.archived)

    async def Observe(self, request: memory_pb2.ObserveRequest, context: grpc.aio.ServicerContext) -> Any:
        observation = Observation(
            repo=request.repo,
            session_id=request.session_id,
            prompt=request.prompt,
            branch=request.branch,
            user=request.user,
            route=request.route,
            hit_paths=tuple(request.hit_paths),
        )
        kept = await self._calls.run(context, self._engine.observe, observation)
        return memory_pb2.ObserveResponse(kept=kept)

    async def DeleteRepo(
        self, request: memory_pb2.DeleteRepoRequest, context: grpc.aio.ServicerContext
    ) -> Any:
        deleted = await self._calls.run(context, self._engine.delete_repo, request.repo)
        return memory_pb2.DeleteRepoResponse(deleted=deleted)
