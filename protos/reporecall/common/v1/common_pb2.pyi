from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ChunkKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHUNK_KIND_UNSPECIFIED: _ClassVar[ChunkKind]
    CHUNK_KIND_FUNCTION: _ClassVar[ChunkKind]
    CHUNK_KIND_METHOD: _ClassVar[ChunkKind]
    CHUNK_KIND_CLASS: _ClassVar[ChunkKind]
    CHUNK_KIND_INTERFACE: _ClassVar[ChunkKind]
    CHUNK_KIND_ENUM: _ClassVar[ChunkKind]
    CHUNK_KIND_TYPE: _ClassVar[ChunkKind]
    CHUNK_KIND_MODULE: _ClassVar[ChunkKind]
    CHUNK_KIND_FILE: _ClassVar[ChunkKind]
CHUNK_KIND_UNSPECIFIED: ChunkKind
CHUNK_KIND_FUNCTION: ChunkKind
CHUNK_KIND_METHOD: ChunkKind
CHUNK_KIND_CLASS: ChunkKind
CHUNK_KIND_INTERFACE: ChunkKind
CHUNK_KIND_ENUM: ChunkKind
CHUNK_KIND_TYPE: ChunkKind
CHUNK_KIND_MODULE: ChunkKind
CHUNK_KIND_FILE: ChunkKind

class Chunk(_message.Message):
    __slots__ = ("id", "repo", "path", "language", "kind", "name", "qualified_name", "parent", "start_line", "end_line", "signature", "doc", "content", "content_hash", "is_test")
    ID_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    QUALIFIED_NAME_FIELD_NUMBER: _ClassVar[int]
    PARENT_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    DOC_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    IS_TEST_FIELD_NUMBER: _ClassVar[int]
    id: str
    repo: str
    path: str
    language: str
    kind: ChunkKind
    name: str
    qualified_name: str
    parent: str
    start_line: int
    end_line: int
    signature: str
    doc: str
    content: str
    content_hash: str
    is_test: bool
    def __init__(self, id: _Optional[str] = ..., repo: _Optional[str] = ..., path: _Optional[str] = ..., language: _Optional[str] = ..., kind: _Optional[_Union[ChunkKind, str]] = ..., name: _Optional[str] = ..., qualified_name: _Optional[str] = ..., parent: _Optional[str] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., signature: _Optional[str] = ..., doc: _Optional[str] = ..., content: _Optional[str] = ..., content_hash: _Optional[str] = ..., is_test: _Optional[bool] = ...) -> None: ...

class CallSite(_message.Message):
    __slots__ = ("caller_id", "callee_name", "line", "receiver")
    CALLER_ID_FIELD_NUMBER: _ClassVar[int]
    CALLEE_NAME_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    RECEIVER_FIELD_NUMBER: _ClassVar[int]
    caller_id: str
    callee_name: str
    line: int
    receiver: str
    def __init__(self, caller_id: _Optional[str] = ..., callee_name: _Optional[str] = ..., line: _Optional[int] = ..., receiver: _Optional[str] = ...) -> None: ...

class Import(_message.Message):
    __slots__ = ("path", "target", "resolved_path", "external", "names", "line")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_PATH_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    path: str
    target: str
    resolved_path: str
    external: bool
    names: _containers.RepeatedScalarFieldContainer[str]
    line: int
    def __init__(self, path: _Optional[str] = ..., target: _Optional[str] = ..., resolved_path: _Optional[str] = ..., external: _Optional[bool] = ..., names: _Optional[_Iterable[str]] = ..., line: _Optional[int] = ...) -> None: ...

class Symbol(_message.Message):
    __slots__ = ("id", "path", "name", "qualified_name", "kind", "start_line", "end_line", "signature", "is_test")
    ID_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    QUALIFIED_NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    IS_TEST_FIELD_NUMBER: _ClassVar[int]
    id: str
    path: str
    name: str
    qualified_name: str
    kind: ChunkKind
    start_line: int
    end_line: int
    signature: str
    is_test: bool
    def __init__(self, id: _Optional[str] = ..., path: _Optional[str] = ..., name: _Optional[str] = ..., qualified_name: _Optional[str] = ..., kind: _Optional[_Union[ChunkKind, str]] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., signature: _Optional[str] = ..., is_test: _Optional[bool] = ...) -> None: ...

class RepoRef(_message.Message):
    __slots__ = ("repo",)
    REPO_FIELD_NUMBER: _ClassVar[int]
    repo: str
    def __init__(self, repo: _Optional[str] = ...) -> None: ...
