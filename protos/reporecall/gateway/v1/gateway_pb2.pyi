from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ContextRequest(_message.Message):
    __slots__ = ("prompt", "repo", "budget_tokens", "active_files", "cwd", "head_commit", "branch", "session_id")
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    BUDGET_TOKENS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FILES_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    HEAD_COMMIT_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    prompt: str
    repo: str
    budget_tokens: int
    active_files: _containers.RepeatedScalarFieldContainer[str]
    cwd: str
    head_commit: str
    branch: str
    session_id: str
    def __init__(self, prompt: _Optional[str] = ..., repo: _Optional[str] = ..., budget_tokens: _Optional[int] = ..., active_files: _Optional[_Iterable[str]] = ..., cwd: _Optional[str] = ..., head_commit: _Optional[str] = ..., branch: _Optional[str] = ..., session_id: _Optional[str] = ...) -> None: ...

class ContextItem(_message.Message):
    __slots__ = ("path", "symbol", "start_line", "end_line", "kind", "score", "tokens", "reason", "chunk_id")
    PATH_FIELD_NUMBER: _ClassVar[int]
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    path: str
    symbol: str
    start_line: int
    end_line: int
    kind: str
    score: float
    tokens: int
    reason: str
    chunk_id: str
    def __init__(self, path: _Optional[str] = ..., symbol: _Optional[str] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., kind: _Optional[str] = ..., score: _Optional[float] = ..., tokens: _Optional[int] = ..., reason: _Optional[str] = ..., chunk_id: _Optional[str] = ...) -> None: ...

class ContextResponse(_message.Message):
    __slots__ = ("text", "route", "seeds", "partial", "degraded", "tokens", "chars", "items", "cut", "repo")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    ROUTE_FIELD_NUMBER: _ClassVar[int]
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    DEGRADED_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    CHARS_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    CUT_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    text: str
    route: str
    seeds: _containers.RepeatedScalarFieldContainer[str]
    partial: bool
    degraded: _containers.RepeatedScalarFieldContainer[str]
    tokens: int
    chars: int
    items: _containers.RepeatedCompositeFieldContainer[ContextItem]
    cut: _containers.RepeatedCompositeFieldContainer[ContextItem]
    repo: str
    def __init__(self, text: _Optional[str] = ..., route: _Optional[str] = ..., seeds: _Optional[_Iterable[str]] = ..., partial: _Optional[bool] = ..., degraded: _Optional[_Iterable[str]] = ..., tokens: _Optional[int] = ..., chars: _Optional[int] = ..., items: _Optional[_Iterable[_Union[ContextItem, _Mapping]]] = ..., cut: _Optional[_Iterable[_Union[ContextItem, _Mapping]]] = ..., repo: _Optional[str] = ...) -> None: ...
