import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class IndexPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INDEX_PHASE_UNSPECIFIED: _ClassVar[IndexPhase]
    INDEX_PHASE_SCANNING: _ClassVar[IndexPhase]
    INDEX_PHASE_INDEXING: _ClassVar[IndexPhase]
    INDEX_PHASE_DELETING: _ClassVar[IndexPhase]
    INDEX_PHASE_DONE: _ClassVar[IndexPhase]
INDEX_PHASE_UNSPECIFIED: IndexPhase
INDEX_PHASE_SCANNING: IndexPhase
INDEX_PHASE_INDEXING: IndexPhase
INDEX_PHASE_DELETING: IndexPhase
INDEX_PHASE_DONE: IndexPhase

class SyncRepoRequest(_message.Message):
    __slots__ = ("repo",)
    REPO_FIELD_NUMBER: _ClassVar[int]
    repo: str
    def __init__(self, repo: _Optional[str] = ...) -> None: ...

class SyncRepoResponse(_message.Message):
    __slots__ = ("pulled", "head_commit", "files_sent", "files_deleted", "errors")
    PULLED_FIELD_NUMBER: _ClassVar[int]
    HEAD_COMMIT_FIELD_NUMBER: _ClassVar[int]
    FILES_SENT_FIELD_NUMBER: _ClassVar[int]
    FILES_DELETED_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    pulled: bool
    head_commit: str
    files_sent: int
    files_deleted: int
    errors: int
    def __init__(self, pulled: _Optional[bool] = ..., head_commit: _Optional[str] = ..., files_sent: _Optional[int] = ..., files_deleted: _Optional[int] = ..., errors: _Optional[int] = ...) -> None: ...

class Repo(_message.Message):
    __slots__ = ("name", "path", "remote", "managed")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    REMOTE_FIELD_NUMBER: _ClassVar[int]
    MANAGED_FIELD_NUMBER: _ClassVar[int]
    name: str
    path: str
    remote: str
    managed: bool
    def __init__(self, name: _Optional[str] = ..., path: _Optional[str] = ..., remote: _Optional[str] = ..., managed: _Optional[bool] = ...) -> None: ...

class RegisterRepoRequest(_message.Message):
    __slots__ = ("name", "path", "git_url")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    GIT_URL_FIELD_NUMBER: _ClassVar[int]
    name: str
    path: str
    git_url: str
    def __init__(self, name: _Optional[str] = ..., path: _Optional[str] = ..., git_url: _Optional[str] = ...) -> None: ...

class RegisterRepoResponse(_message.Message):
    __slots__ = ("repo",)
    REPO_FIELD_NUMBER: _ClassVar[int]
    repo: Repo
    def __init__(self, repo: _Optional[_Union[Repo, _Mapping]] = ...) -> None: ...

class ListReposRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListReposResponse(_message.Message):
    __slots__ = ("repos",)
    REPOS_FIELD_NUMBER: _ClassVar[int]
    repos: _containers.RepeatedCompositeFieldContainer[Repo]
    def __init__(self, repos: _Optional[_Iterable[_Union[Repo, _Mapping]]] = ...) -> None: ...

class RemoveRepoRequest(_message.Message):
    __slots__ = ("repo",)
    REPO_FIELD_NUMBER: _ClassVar[int]
    repo: str
    def __init__(self, repo: _Optional[str] = ...) -> None: ...

class RemoveRepoResponse(_message.Message):
    __slots__ = ("removed",)
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    removed: bool
    def __init__(self, removed: _Optional[bool] = ...) -> None: ...

class IndexRepoRequest(_message.Message):
    __slots__ = ("repo", "full")
    REPO_FIELD_NUMBER: _ClassVar[int]
    FULL_FIELD_NUMBER: _ClassVar[int]
    repo: str
    full: bool
    def __init__(self, repo: _Optional[str] = ..., full: _Optional[bool] = ...) -> None: ...

class IndexRepoResponse(_message.Message):
    __slots__ = ("phase", "files_scanned", "files_changed", "files_parsed", "files_sent", "files_deleted", "chunks", "errors", "eta_seconds", "message", "skipped_reasons", "skipped_files")
    class SkippedReasonsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    PHASE_FIELD_NUMBER: _ClassVar[int]
    FILES_SCANNED_FIELD_NUMBER: _ClassVar[int]
    FILES_CHANGED_FIELD_NUMBER: _ClassVar[int]
    FILES_PARSED_FIELD_NUMBER: _ClassVar[int]
    FILES_SENT_FIELD_NUMBER: _ClassVar[int]
    FILES_DELETED_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    ETA_SECONDS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_REASONS_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FILES_FIELD_NUMBER: _ClassVar[int]
    phase: IndexPhase
    files_scanned: int
    files_changed: int
    files_parsed: int
    files_sent: int
    files_deleted: int
    chunks: int
    errors: int
    eta_seconds: float
    message: str
    skipped_reasons: _containers.ScalarMap[str, int]
    skipped_files: _containers.RepeatedCompositeFieldContainer[SkippedFile]
    def __init__(self, phase: _Optional[_Union[IndexPhase, str]] = ..., files_scanned: _Optional[int] = ..., files_changed: _Optional[int] = ..., files_parsed: _Optional[int] = ..., files_sent: _Optional[int] = ..., files_deleted: _Optional[int] = ..., chunks: _Optional[int] = ..., errors: _Optional[int] = ..., eta_seconds: _Optional[float] = ..., message: _Optional[str] = ..., skipped_reasons: _Optional[_Mapping[str, int]] = ..., skipped_files: _Optional[_Iterable[_Union[SkippedFile, _Mapping]]] = ...) -> None: ...

class SkippedFile(_message.Message):
    __slots__ = ("path", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class IndexPathsRequest(_message.Message):
    __slots__ = ("repo", "paths")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, repo: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ...) -> None: ...

class IndexPathsResponse(_message.Message):
    __slots__ = ("files_sent", "files_deleted", "rejected")
    FILES_SENT_FIELD_NUMBER: _ClassVar[int]
    FILES_DELETED_FIELD_NUMBER: _ClassVar[int]
    REJECTED_FIELD_NUMBER: _ClassVar[int]
    files_sent: int
    files_deleted: int
    rejected: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, files_sent: _Optional[int] = ..., files_deleted: _Optional[int] = ..., rejected: _Optional[_Iterable[str]] = ...) -> None: ...

class RepoStatusRequest(_message.Message):
    __slots__ = ("repo",)
    REPO_FIELD_NUMBER: _ClassVar[int]
    repo: str
    def __init__(self, repo: _Optional[str] = ...) -> None: ...

class RepoStatusResponse(_message.Message):
    __slots__ = ("repo", "indexed_commit", "head_commit", "files", "chunks", "last_run_started", "last_run_finished", "dirty_files", "running", "pending_files", "branch", "dirty_truncated")
    REPO_FIELD_NUMBER: _ClassVar[int]
    INDEXED_COMMIT_FIELD_NUMBER: _ClassVar[int]
    HEAD_COMMIT_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    LAST_RUN_STARTED_FIELD_NUMBER: _ClassVar[int]
    LAST_RUN_FINISHED_FIELD_NUMBER: _ClassVar[int]
    DIRTY_FILES_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    PENDING_FILES_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    DIRTY_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    repo: Repo
    indexed_commit: str
    head_commit: str
    files: int
    chunks: int
    last_run_started: _timestamp_pb2.Timestamp
    last_run_finished: _timestamp_pb2.Timestamp
    dirty_files: _containers.RepeatedScalarFieldContainer[str]
    running: bool
    pending_files: int
    branch: str
    dirty_truncated: bool
    def __init__(self, repo: _Optional[_Union[Repo, _Mapping]] = ..., indexed_commit: _Optional[str] = ..., head_commit: _Optional[str] = ..., files: _Optional[int] = ..., chunks: _Optional[int] = ..., last_run_started: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_run_finished: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., dirty_files: _Optional[_Iterable[str]] = ..., running: _Optional[bool] = ..., pending_files: _Optional[int] = ..., branch: _Optional[str] = ..., dirty_truncated: _Optional[bool] = ...) -> None: ...
