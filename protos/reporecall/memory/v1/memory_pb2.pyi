import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MemoryType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEMORY_TYPE_UNSPECIFIED: _ClassVar[MemoryType]
    MEMORY_TYPE_USER: _ClassVar[MemoryType]
    MEMORY_TYPE_FEEDBACK: _ClassVar[MemoryType]
    MEMORY_TYPE_PROJECT: _ClassVar[MemoryType]
    MEMORY_TYPE_REFERENCE: _ClassVar[MemoryType]

class MemoryClass(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEMORY_CLASS_UNSPECIFIED: _ClassVar[MemoryClass]
    MEMORY_CLASS_RULE: _ClassVar[MemoryClass]
    MEMORY_CLASS_FACT: _ClassVar[MemoryClass]
    MEMORY_CLASS_EPISODE: _ClassVar[MemoryClass]
    MEMORY_CLASS_WORKING: _ClassVar[MemoryClass]

class MemoryScope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEMORY_SCOPE_UNSPECIFIED: _ClassVar[MemoryScope]
    MEMORY_SCOPE_GLOBAL: _ClassVar[MemoryScope]
    MEMORY_SCOPE_PROJECT: _ClassVar[MemoryScope]
    MEMORY_SCOPE_BRANCH: _ClassVar[MemoryScope]
    MEMORY_SCOPE_USER: _ClassVar[MemoryScope]

class MemoryStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEMORY_STATUS_UNSPECIFIED: _ClassVar[MemoryStatus]
    MEMORY_STATUS_ACTIVE: _ClassVar[MemoryStatus]
    MEMORY_STATUS_ARCHIVED: _ClassVar[MemoryStatus]
    MEMORY_STATUS_SUPERSEDED: _ClassVar[MemoryStatus]
MEMORY_TYPE_UNSPECIFIED: MemoryType
MEMORY_TYPE_USER: MemoryType
MEMORY_TYPE_FEEDBACK: MemoryType
MEMORY_TYPE_PROJECT: MemoryType
MEMORY_TYPE_REFERENCE: MemoryType
MEMORY_CLASS_UNSPECIFIED: MemoryClass
MEMORY_CLASS_RULE: MemoryClass
MEMORY_CLASS_FACT: MemoryClass
MEMORY_CLASS_EPISODE: MemoryClass
MEMORY_CLASS_WORKING: MemoryClass
MEMORY_SCOPE_UNSPECIFIED: MemoryScope
MEMORY_SCOPE_GLOBAL: MemoryScope
MEMORY_SCOPE_PROJECT: MemoryScope
MEMORY_SCOPE_BRANCH: MemoryScope
MEMORY_SCOPE_USER: MemoryScope
MEMORY_STATUS_UNSPECIFIED: MemoryStatus
MEMORY_STATUS_ACTIVE: MemoryStatus
MEMORY_STATUS_ARCHIVED: MemoryStatus
MEMORY_STATUS_SUPERSEDED: MemoryStatus

class Memory(_message.Message):
    __slots__ = ("id", "name", "description", "type", "memory_class", "scope", "status", "pinned", "confidence", "fingerprint", "supersedes", "reason", "related_files", "related_symbols", "body", "branch", "user", "source", "created", "updated", "repo")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MEMORY_CLASS_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PINNED_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    SUPERSEDES_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RELATED_FILES_FIELD_NUMBER: _ClassVar[int]
    RELATED_SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    description: str
    type: MemoryType
    memory_class: MemoryClass
    scope: MemoryScope
    status: MemoryStatus
    pinned: bool
    confidence: float
    fingerprint: str
    supersedes: _containers.RepeatedScalarFieldContainer[str]
    reason: str
    related_files: _containers.RepeatedScalarFieldContainer[str]
    related_symbols: _containers.RepeatedScalarFieldContainer[str]
    body: str
    branch: str
    user: str
    source: str
    created: _timestamp_pb2.Timestamp
    updated: _timestamp_pb2.Timestamp
    repo: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., type: _Optional[_Union[MemoryType, str]] = ..., memory_class: _Optional[_Union[MemoryClass, str]] = ..., scope: _Optional[_Union[MemoryScope, str]] = ..., status: _Optional[_Union[MemoryStatus, str]] = ..., pinned: _Optional[bool] = ..., confidence: _Optional[float] = ..., fingerprint: _Optional[str] = ..., supersedes: _Optional[_Iterable[str]] = ..., reason: _Optional[str] = ..., related_files: _Optional[_Iterable[str]] = ..., related_symbols: _Optional[_Iterable[str]] = ..., body: _Optional[str] = ..., branch: _Optional[str] = ..., user: _Optional[str] = ..., source: _Optional[str] = ..., created: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., repo: _Optional[str] = ...) -> None: ...

class StoreRequest(_message.Message):
    __slots__ = ("memory", "admin")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    ADMIN_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    admin: bool
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ..., admin: _Optional[bool] = ...) -> None: ...

class StoreResponse(_message.Message):
    __slots__ = ("memory",)
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ...) -> None: ...

class RecallRequest(_message.Message):
    __slots__ = ("repo", "query", "branch", "user", "classes", "budget_tokens", "limit", "include_inactive", "repo_path")
    REPO_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    CLASSES_FIELD_NUMBER: _ClassVar[int]
    BUDGET_TOKENS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_INACTIVE_FIELD_NUMBER: _ClassVar[int]
    REPO_PATH_FIELD_NUMBER: _ClassVar[int]
    repo: str
    query: str
    branch: str
    user: str
    classes: _containers.RepeatedScalarFieldContainer[MemoryClass]
    budget_tokens: int
    limit: int
    include_inactive: bool
    repo_path: str
    def __init__(self, repo: _Optional[str] = ..., query: _Optional[str] = ..., branch: _Optional[str] = ..., user: _Optional[str] = ..., classes: _Optional[_Iterable[_Union[MemoryClass, str]]] = ..., budget_tokens: _Optional[int] = ..., limit: _Optional[int] = ..., include_inactive: _Optional[bool] = ..., repo_path: _Optional[str] = ...) -> None: ...

class RecalledMemory(_message.Message):
    __slots__ = ("memory", "score", "tokens")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    score: float
    tokens: int
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ..., score: _Optional[float] = ..., tokens: _Optional[int] = ...) -> None: ...

class RecallResponse(_message.Message):
    __slots__ = ("memories", "tokens")
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[RecalledMemory]
    tokens: int
    def __init__(self, memories: _Optional[_Iterable[_Union[RecalledMemory, _Mapping]]] = ..., tokens: _Optional[int] = ...) -> None: ...

class ForgetRequest(_message.Message):
    __slots__ = ("repo", "id", "user", "admin")
    REPO_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    ADMIN_FIELD_NUMBER: _ClassVar[int]
    repo: str
    id: str
    user: str
    admin: bool
    def __init__(self, repo: _Optional[str] = ..., id: _Optional[str] = ..., user: _Optional[str] = ..., admin: _Optional[bool] = ...) -> None: ...

class ForgetResponse(_message.Message):
    __slots__ = ("forgotten",)
    FORGOTTEN_FIELD_NUMBER: _ClassVar[int]
    forgotten: bool
    def __init__(self, forgotten: _Optional[bool] = ...) -> None: ...

class ListRequest(_message.Message):
    __slots__ = ("repo", "user", "branch", "include_inactive", "limit")
    REPO_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_INACTIVE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    repo: str
    user: str
    branch: str
    include_inactive: bool
    limit: int
    def __init__(self, repo: _Optional[str] = ..., user: _Optional[str] = ..., branch: _Optional[str] = ..., include_inactive: _Optional[bool] = ..., limit: _Optional[int] = ...) -> None: ...

class ListResponse(_message.Message):
    __slots__ = ("memories",)
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[Memory]
    def __init__(self, memories: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ...) -> None: ...

class CompactRequest(_message.Message):
    __slots__ = ("repo", "episode_max_age_days", "user", "admin")
    REPO_FIELD_NUMBER: _ClassVar[int]
    EPISODE_MAX_AGE_DAYS_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    ADMIN_FIELD_NUMBER: _ClassVar[int]
    repo: str
    episode_max_age_days: int
    user: str
    admin: bool
    def __init__(self, repo: _Optional[str] = ..., episode_max_age_days: _Optional[int] = ..., user: _Optional[str] = ..., admin: _Optional[bool] = ...) -> None: ...

class CompactResponse(_message.Message):
    __slots__ = ("superseded", "archived")
    SUPERSEDED_FIELD_NUMBER: _ClassVar[int]
    ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    superseded: int
    archived: int
    def __init__(self, superseded: _Optional[int] = ..., archived: _Optional[int] = ...) -> None: ...

class ObserveRequest(_message.Message):
    __slots__ = ("repo", "session_id", "branch", "user", "prompt", "route", "hit_paths")
    REPO_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    ROUTE_FIELD_NUMBER: _ClassVar[int]
    HIT_PATHS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    session_id: str
    branch: str
    user: str
    prompt: str
    route: str
    hit_paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, repo: _Optional[str] = ..., session_id: _Optional[str] = ..., branch: _Optional[str] = ..., user: _Optional[str] = ..., prompt: _Optional[str] = ..., route: _Optional[str] = ..., hit_paths: _Optional[_Iterable[str]] = ...) -> None: ...

class ObserveResponse(_message.Message):
    __slots__ = ("kept",)
    KEPT_FIELD_NUMBER: _ClassVar[int]
    kept: int
    def __init__(self, kept: _Optional[int] = ...) -> None: ...

class DeleteRepoRequest(_message.Message):
    __slots__ = ("repo",)
    REPO_FIELD_NUMBER: _ClassVar[int]
    repo: str
    def __init__(self, repo: _Optional[str] = ...) -> None: ...

class DeleteRepoResponse(_message.Message):
    __slots__ = ("deleted",)
    DELETED_FIELD_NUMBER: _ClassVar[int]
    deleted: int
    def __init__(self, deleted: _Optional[int] = ...) -> None: ...
