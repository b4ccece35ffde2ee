from reporecall.common.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SearchMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEARCH_MODE_UNSPECIFIED: _ClassVar[SearchMode]
    SEARCH_MODE_HYBRID: _ClassVar[SearchMode]
    SEARCH_MODE_KEYWORD: _ClassVar[SearchMode]
    SEARCH_MODE_VECTOR: _ClassVar[SearchMode]

class TestFilter(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TEST_FILTER_UNSPECIFIED: _ClassVar[TestFilter]
    TEST_FILTER_EXCLUDE: _ClassVar[TestFilter]
    TEST_FILTER_ONLY: _ClassVar[TestFilter]

class SymbolMatch(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SYMBOL_MATCH_UNSPECIFIED: _ClassVar[SymbolMatch]
    SYMBOL_MATCH_EXACT: _ClassVar[SymbolMatch]
    SYMBOL_MATCH_PREFIX: _ClassVar[SymbolMatch]
    SYMBOL_MATCH_FUZZY: _ClassVar[SymbolMatch]
SEARCH_MODE_UNSPECIFIED: SearchMode
SEARCH_MODE_HYBRID: SearchMode
SEARCH_MODE_KEYWORD: SearchMode
SEARCH_MODE_VECTOR: SearchMode
TEST_FILTER_UNSPECIFIED: TestFilter
TEST_FILTER_EXCLUDE: TestFilter
TEST_FILTER_ONLY: TestFilter
SYMBOL_MATCH_UNSPECIFIED: SymbolMatch
SYMBOL_MATCH_EXACT: SymbolMatch
SYMBOL_MATCH_PREFIX: SymbolMatch
SYMBOL_MATCH_FUZZY: SymbolMatch

class RepoProfileRequest(_message.Message):
    __slots__ = ("repo", "max_symbols")
    REPO_FIELD_NUMBER: _ClassVar[int]
    MAX_SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    max_symbols: int
    def __init__(self, repo: _Optional[str] = ..., max_symbols: _Optional[int] = ...) -> None: ...

class ProfileFile(_message.Message):
    __slots__ = ("path", "language", "is_test")
    PATH_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    IS_TEST_FIELD_NUMBER: _ClassVar[int]
    path: str
    language: str
    is_test: bool
    def __init__(self, path: _Optional[str] = ..., language: _Optional[str] = ..., is_test: _Optional[bool] = ...) -> None: ...

class RepoProfileResponse(_message.Message):
    __slots__ = ("files", "symbols")
    FILES_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedCompositeFieldContainer[ProfileFile]
    symbols: _containers.RepeatedCompositeFieldContainer[_common_pb2.Chunk]
    def __init__(self, files: _Optional[_Iterable[_Union[ProfileFile, _Mapping]]] = ..., symbols: _Optional[_Iterable[_Union[_common_pb2.Chunk, _Mapping]]] = ...) -> None: ...

class FileChunksRequest(_message.Message):
    __slots__ = ("repo", "path")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    repo: str
    path: str
    def __init__(self, repo: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class FileLinesRequest(_message.Message):
    __slots__ = ("repo", "paths")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, repo: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ...) -> None: ...

class FileLinesResponse(_message.Message):
    __slots__ = ("lines",)
    class LinesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    LINES_FIELD_NUMBER: _ClassVar[int]
    lines: _containers.ScalarMap[str, int]
    def __init__(self, lines: _Optional[_Mapping[str, int]] = ...) -> None: ...

class FileChunksResponse(_message.Message):
    __slots__ = ("chunks",)
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    chunks: _containers.RepeatedCompositeFieldContainer[_common_pb2.Chunk]
    def __init__(self, chunks: _Optional[_Iterable[_Union[_common_pb2.Chunk, _Mapping]]] = ...) -> None: ...

class FeedbackRequest(_message.Message):
    __slots__ = ("repo", "chunk_id", "useful", "query")
    REPO_FIELD_NUMBER: _ClassVar[int]
    CHUNK_ID_FIELD_NUMBER: _ClassVar[int]
    USEFUL_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    repo: str
    chunk_id: str
    useful: bool
    query: str
    def __init__(self, repo: _Optional[str] = ..., chunk_id: _Optional[str] = ..., useful: _Optional[bool] = ..., query: _Optional[str] = ...) -> None: ...

class FeedbackResponse(_message.Message):
    __slots__ = ("score",)
    SCORE_FIELD_NUMBER: _ClassVar[int]
    score: int
    def __init__(self, score: _Optional[int] = ...) -> None: ...

class UpsertFileRequest(_message.Message):
    __slots__ = ("repo", "path", "file_hash", "chunks")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    FILE_HASH_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    path: str
    file_hash: str
    chunks: _containers.RepeatedCompositeFieldContainer[_common_pb2.Chunk]
    def __init__(self, repo: _Optional[str] = ..., path: _Optional[str] = ..., file_hash: _Optional[str] = ..., chunks: _Optional[_Iterable[_Union[_common_pb2.Chunk, _Mapping]]] = ...) -> None: ...

class UpsertFileResponse(_message.Message):
    __slots__ = ("chunks_stored",)
    CHUNKS_STORED_FIELD_NUMBER: _ClassVar[int]
    chunks_stored: int
    def __init__(self, chunks_stored: _Optional[int] = ...) -> None: ...

class DeleteFilesRequest(_message.Message):
    __slots__ = ("repo", "paths")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, repo: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ...) -> None: ...

class DeleteFilesResponse(_message.Message):
    __slots__ = ("chunks_deleted",)
    CHUNKS_DELETED_FIELD_NUMBER: _ClassVar[int]
    chunks_deleted: int
    def __init__(self, chunks_deleted: _Optional[int] = ...) -> None: ...

class DeleteRepoRequest(_message.Message):
    __slots__ = ("repo",)
    REPO_FIELD_NUMBER: _ClassVar[int]
    repo: str
    def __init__(self, repo: _Optional[str] = ...) -> None: ...

class DeleteRepoResponse(_message.Message):
    __slots__ = ("chunks_deleted",)
    CHUNKS_DELETED_FIELD_NUMBER: _ClassVar[int]
    chunks_deleted: int
    def __init__(self, chunks_deleted: _Optional[int] = ...) -> None: ...

class SearchFilters(_message.Message):
    __slots__ = ("languages", "kinds", "path_prefix", "tests")
    LANGUAGES_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    PATH_PREFIX_FIELD_NUMBER: _ClassVar[int]
    TESTS_FIELD_NUMBER: _ClassVar[int]
    languages: _containers.RepeatedScalarFieldContainer[str]
    kinds: _containers.RepeatedScalarFieldContainer[_common_pb2.ChunkKind]
    path_prefix: str
    tests: TestFilter
    def __init__(self, languages: _Optional[_Iterable[str]] = ..., kinds: _Optional[_Iterable[_Union[_common_pb2.ChunkKind, str]]] = ..., path_prefix: _Optional[str] = ..., tests: _Optional[_Union[TestFilter, str]] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("query", "repo", "filters", "limit", "mode")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    query: str
    repo: str
    filters: SearchFilters
    limit: int
    mode: SearchMode
    def __init__(self, query: _Optional[str] = ..., repo: _Optional[str] = ..., filters: _Optional[_Union[SearchFilters, _Mapping]] = ..., limit: _Optional[int] = ..., mode: _Optional[_Union[SearchMode, str]] = ...) -> None: ...

class SignalScores(_message.Message):
    __slots__ = ("keyword_rank", "keyword_score", "vector_rank", "vector_score", "fused", "adjustment")
    KEYWORD_RANK_FIELD_NUMBER: _ClassVar[int]
    KEYWORD_SCORE_FIELD_NUMBER: _ClassVar[int]
    VECTOR_RANK_FIELD_NUMBER: _ClassVar[int]
    VECTOR_SCORE_FIELD_NUMBER: _ClassVar[int]
    FUSED_FIELD_NUMBER: _ClassVar[int]
    ADJUSTMENT_FIELD_NUMBER: _ClassVar[int]
    keyword_rank: int
    keyword_score: float
    vector_rank: int
    vector_score: float
    fused: float
    adjustment: float
    def __init__(self, keyword_rank: _Optional[int] = ..., keyword_score: _Optional[float] = ..., vector_rank: _Optional[int] = ..., vector_score: _Optional[float] = ..., fused: _Optional[float] = ..., adjustment: _Optional[float] = ...) -> None: ...

class SearchHit(_message.Message):
    __slots__ = ("chunk", "score", "signals")
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    chunk: _common_pb2.Chunk
    score: float
    signals: SignalScores
    def __init__(self, chunk: _Optional[_Union[_common_pb2.Chunk, _Mapping]] = ..., score: _Optional[float] = ..., signals: _Optional[_Union[SignalScores, _Mapping]] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("hits", "partial", "off_topic")
    HITS_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    OFF_TOPIC_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[SearchHit]
    partial: bool
    off_topic: float
    def __init__(self, hits: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ..., partial: _Optional[bool] = ..., off_topic: _Optional[float] = ...) -> None: ...

class GetChunksRequest(_message.Message):
    __slots__ = ("repo", "ids")
    REPO_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, repo: _Optional[str] = ..., ids: _Optional[_Iterable[str]] = ...) -> None: ...

class GetChunksResponse(_message.Message):
    __slots__ = ("chunks",)
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    chunks: _containers.RepeatedCompositeFieldContainer[_common_pb2.Chunk]
    def __init__(self, chunks: _Optional[_Iterable[_Union[_common_pb2.Chunk, _Mapping]]] = ...) -> None: ...

class FindSymbolsRequest(_message.Message):
    __slots__ = ("repo", "name", "match", "limit")
    REPO_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    MATCH_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    repo: str
    name: str
    match: SymbolMatch
    limit: int
    def __init__(self, repo: _Optional[str] = ..., name: _Optional[str] = ..., match: _Optional[_Union[SymbolMatch, str]] = ..., limit: _Optional[int] = ...) -> None: ...

class FindSymbolsResponse(_message.Message):
    __slots__ = ("symbols",)
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    symbols: _containers.RepeatedCompositeFieldContainer[_common_pb2.Chunk]
    def __init__(self, symbols: _Optional[_Iterable[_Union[_common_pb2.Chunk, _Mapping]]] = ...) -> None: ...

class StatsRequest(_message.Message):
    __slots__ = ("repo",)
    REPO_FIELD_NUMBER: _ClassVar[int]
    repo: str
    def __init__(self, repo: _Optional[str] = ...) -> None: ...

class StatsResponse(_message.Message):
    __slots__ = ("files", "chunks", "vectors", "embed_backlog", "keyword_backend", "vector_backend", "embedder")
    FILES_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    VECTORS_FIELD_NUMBER: _ClassVar[int]
    EMBED_BACKLOG_FIELD_NUMBER: _ClassVar[int]
    KEYWORD_BACKEND_FIELD_NUMBER: _ClassVar[int]
    VECTOR_BACKEND_FIELD_NUMBER: _ClassVar[int]
    EMBEDDER_FIELD_NUMBER: _ClassVar[int]
    files: int
    chunks: int
    vectors: int
    embed_backlog: int
    keyword_backend: str
    vector_backend: str
    embedder: str
    def __init__(self, files: _Optional[int] = ..., chunks: _Optional[int] = ..., vectors: _Optional[int] = ..., embed_backlog: _Optional[int] = ..., keyword_backend: _Optional[str] = ..., vector_backend: _Optional[str] = ..., embedder: _Optional[str] = ...) -> None: ...
