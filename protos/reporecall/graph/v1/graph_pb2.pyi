import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from reporecall.common.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Resolution(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESOLUTION_UNSPECIFIED: _ClassVar[Resolution]
    RESOLUTION_SAME_FILE: _ClassVar[Resolution]
    RESOLUTION_IMPORTED: _ClassVar[Resolution]
    RESOLUTION_GLOBAL_UNIQUE: _ClassVar[Resolution]
    RESOLUTION_AMBIGUOUS: _ClassVar[Resolution]
    RESOLUTION_EXTERNAL: _ClassVar[Resolution]
RESOLUTION_UNSPECIFIED: Resolution
RESOLUTION_SAME_FILE: Resolution
RESOLUTION_IMPORTED: Resolution
RESOLUTION_GLOBAL_UNIQUE: Resolution
RESOLUTION_AMBIGUOUS: Resolution
RESOLUTION_EXTERNAL: Resolution

class ReplaceFileGraphRequest(_message.Message):
    __slots__ = ("repo", "path", "file_hash", "symbols", "call_sites", "imports")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    FILE_HASH_FIELD_NUMBER: _ClassVar[int]
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    CALL_SITES_FIELD_NUMBER: _ClassVar[int]
    IMPORTS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    path: str
    file_hash: str
    symbols: _containers.RepeatedCompositeFieldContainer[_common_pb2.Symbol]
    call_sites: _containers.RepeatedCompositeFieldContainer[_common_pb2.CallSite]
    imports: _containers.RepeatedCompositeFieldContainer[_common_pb2.Import]
    def __init__(self, repo: _Optional[str] = ..., path: _Optional[str] = ..., file_hash: _Optional[str] = ..., symbols: _Optional[_Iterable[_Union[_common_pb2.Symbol, _Mapping]]] = ..., call_sites: _Optional[_Iterable[_Union[_common_pb2.CallSite, _Mapping]]] = ..., imports: _Optional[_Iterable[_Union[_common_pb2.Import, _Mapping]]] = ...) -> None: ...

class ReplaceFileGraphResponse(_message.Message):
    __slots__ = ("symbols", "call_sites")
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    CALL_SITES_FIELD_NUMBER: _ClassVar[int]
    symbols: int
    call_sites: int
    def __init__(self, symbols: _Optional[int] = ..., call_sites: _Optional[int] = ...) -> None: ...

class DeleteFilesRequest(_message.Message):
    __slots__ = ("repo", "paths")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, repo: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ...) -> None: ...

class DeleteFilesResponse(_message.Message):
    __slots__ = ("symbols_deleted",)
    SYMBOLS_DELETED_FIELD_NUMBER: _ClassVar[int]
    symbols_deleted: int
    def __init__(self, symbols_deleted: _Optional[int] = ...) -> None: ...

class DeleteRepoRequest(_message.Message):
    __slots__ = ("repo",)
    REPO_FIELD_NUMBER: _ClassVar[int]
    repo: str
    def __init__(self, repo: _Optional[str] = ...) -> None: ...

class DeleteRepoResponse(_message.Message):
    __slots__ = ("symbols_deleted",)
    SYMBOLS_DELETED_FIELD_NUMBER: _ClassVar[int]
    symbols_deleted: int
    def __init__(self, symbols_deleted: _Optional[int] = ...) -> None: ...

class SymbolRef(_message.Message):
    __slots__ = ("id", "name")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class GraphNode(_message.Message):
    __slots__ = ("symbol", "depth")
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    symbol: _common_pb2.Symbol
    depth: int
    def __init__(self, symbol: _Optional[_Union[_common_pb2.Symbol, _Mapping]] = ..., depth: _Optional[int] = ...) -> None: ...

class CallEdge(_message.Message):
    __slots__ = ("caller_id", "callee_id", "callee_name", "line", "resolution", "candidates", "count")
    CALLER_ID_FIELD_NUMBER: _ClassVar[int]
    CALLEE_ID_FIELD_NUMBER: _ClassVar[int]
    CALLEE_NAME_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    caller_id: str
    callee_id: str
    callee_name: str
    line: int
    resolution: Resolution
    candidates: int
    count: int
    def __init__(self, caller_id: _Optional[str] = ..., callee_id: _Optional[str] = ..., callee_name: _Optional[str] = ..., line: _Optional[int] = ..., resolution: _Optional[_Union[Resolution, str]] = ..., candidates: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class CallersRequest(_message.Message):
    __slots__ = ("repo", "symbol", "depth", "limit", "include_ambiguous")
    REPO_FIELD_NUMBER: _ClassVar[int]
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_AMBIGUOUS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    symbol: SymbolRef
    depth: int
    limit: int
    include_ambiguous: bool
    def __init__(self, repo: _Optional[str] = ..., symbol: _Optional[_Union[SymbolRef, _Mapping]] = ..., depth: _Optional[int] = ..., limit: _Optional[int] = ..., include_ambiguous: _Optional[bool] = ...) -> None: ...

class CallersResponse(_message.Message):
    __slots__ = ("seeds", "nodes", "edges", "truncated")
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    seeds: _containers.RepeatedCompositeFieldContainer[_common_pb2.Symbol]
    nodes: _containers.RepeatedCompositeFieldContainer[GraphNode]
    edges: _containers.RepeatedCompositeFieldContainer[CallEdge]
    truncated: bool
    def __init__(self, seeds: _Optional[_Iterable[_Union[_common_pb2.Symbol, _Mapping]]] = ..., nodes: _Optional[_Iterable[_Union[GraphNode, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[CallEdge, _Mapping]]] = ..., truncated: _Optional[bool] = ...) -> None: ...

class CalleesRequest(_message.Message):
    __slots__ = ("repo", "symbol", "depth", "limit", "include_ambiguous")
    REPO_FIELD_NUMBER: _ClassVar[int]
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_AMBIGUOUS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    symbol: SymbolRef
    depth: int
    limit: int
    include_ambiguous: bool
    def __init__(self, repo: _Optional[str] = ..., symbol: _Optional[_Union[SymbolRef, _Mapping]] = ..., depth: _Optional[int] = ..., limit: _Optional[int] = ..., include_ambiguous: _Optional[bool] = ...) -> None: ...

class CalleesResponse(_message.Message):
    __slots__ = ("seeds", "nodes", "edges", "truncated")
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    seeds: _containers.RepeatedCompositeFieldContainer[_common_pb2.Symbol]
    nodes: _containers.RepeatedCompositeFieldContainer[GraphNode]
    edges: _containers.RepeatedCompositeFieldContainer[CallEdge]
    truncated: bool
    def __init__(self, seeds: _Optional[_Iterable[_Union[_common_pb2.Symbol, _Mapping]]] = ..., nodes: _Optional[_Iterable[_Union[GraphNode, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[CallEdge, _Mapping]]] = ..., truncated: _Optional[bool] = ...) -> None: ...

class CallTreeRequest(_message.Message):
    __slots__ = ("repo", "seed", "up", "down", "branch")
    REPO_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    UP_FIELD_NUMBER: _ClassVar[int]
    DOWN_FIELD_NUMBER: _ClassVar[int]
    BRANCH_FIELD_NUMBER: _ClassVar[int]
    repo: str
    seed: SymbolRef
    up: int
    down: int
    branch: int
    def __init__(self, repo: _Optional[str] = ..., seed: _Optional[_Union[SymbolRef, _Mapping]] = ..., up: _Optional[int] = ..., down: _Optional[int] = ..., branch: _Optional[int] = ...) -> None: ...

class CallTreeResponse(_message.Message):
    __slots__ = ("seed", "nodes", "edges", "alternatives")
    SEED_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    ALTERNATIVES_FIELD_NUMBER: _ClassVar[int]
    seed: _common_pb2.Symbol
    nodes: _containers.RepeatedCompositeFieldContainer[GraphNode]
    edges: _containers.RepeatedCompositeFieldContainer[CallEdge]
    alternatives: _containers.RepeatedCompositeFieldContainer[_common_pb2.Symbol]
    def __init__(self, seed: _Optional[_Union[_common_pb2.Symbol, _Mapping]] = ..., nodes: _Optional[_Iterable[_Union[GraphNode, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[CallEdge, _Mapping]]] = ..., alternatives: _Optional[_Iterable[_Union[_common_pb2.Symbol, _Mapping]]] = ...) -> None: ...

class ShortestPathRequest(_message.Message):
    __slots__ = ("repo", "to", "max_depth")
    REPO_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    repo: str
    to: SymbolRef
    max_depth: int
    def __init__(self, repo: _Optional[str] = ..., to: _Optional[_Union[SymbolRef, _Mapping]] = ..., max_depth: _Optional[int] = ..., **kwargs) -> None: ...

class ShortestPathResponse(_message.Message):
    __slots__ = ("path", "edges")
    PATH_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    path: _containers.RepeatedCompositeFieldContainer[_common_pb2.Symbol]
    edges: _containers.RepeatedCompositeFieldContainer[CallEdge]
    def __init__(self, path: _Optional[_Iterable[_Union[_common_pb2.Symbol, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[CallEdge, _Mapping]]] = ...) -> None: ...

class ImportsRequest(_message.Message):
    __slots__ = ("repo", "path")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    repo: str
    path: str
    def __init__(self, repo: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class ImportsResponse(_message.Message):
    __slots__ = ("imports",)
    IMPORTS_FIELD_NUMBER: _ClassVar[int]
    imports: _containers.RepeatedCompositeFieldContainer[_common_pb2.Import]
    def __init__(self, imports: _Optional[_Iterable[_Union[_common_pb2.Import, _Mapping]]] = ...) -> None: ...

class ImportersRequest(_message.Message):
    __slots__ = ("repo", "path")
    REPO_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    repo: str
    path: str
    def __init__(self, repo: _Optional[str] = ..., path: _Optional[str] = ...) -> None: ...

class ImportersResponse(_message.Message):
    __slots__ = ("imports",)
    IMPORTS_FIELD_NUMBER: _ClassVar[int]
    imports: _containers.RepeatedCompositeFieldContainer[_common_pb2.Import]
    def __init__(self, imports: _Optional[_Iterable[_Union[_common_pb2.Import, _Mapping]]] = ...) -> None: ...

class CommunitiesRequest(_message.Message):
    __slots__ = ("repo", "limit", "recompute")
    REPO_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    RECOMPUTE_FIELD_NUMBER: _ClassVar[int]
    repo: str
    limit: int
    recompute: bool
    def __init__(self, repo: _Optional[str] = ..., limit: _Optional[int] = ..., recompute: _Optional[bool] = ...) -> None: ...

class Community(_message.Message):
    __slots__ = ("id", "size", "dominant_paths", "top_symbols", "label")
    ID_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    DOMINANT_PATHS_FIELD_NUMBER: _ClassVar[int]
    TOP_SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    id: int
    size: int
    dominant_paths: _containers.RepeatedScalarFieldContainer[str]
    top_symbols: _containers.RepeatedCompositeFieldContainer[_common_pb2.Symbol]
    label: str
    def __init__(self, id: _Optional[int] = ..., size: _Optional[int] = ..., dominant_paths: _Optional[_Iterable[str]] = ..., top_symbols: _Optional[_Iterable[_Union[_common_pb2.Symbol, _Mapping]]] = ..., label: _Optional[str] = ...) -> None: ...

class Hub(_message.Message):
    __slots__ = ("symbol", "in_degree", "out_degree", "community")
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    IN_DEGREE_FIELD_NUMBER: _ClassVar[int]
    OUT_DEGREE_FIELD_NUMBER: _ClassVar[int]
    COMMUNITY_FIELD_NUMBER: _ClassVar[int]
    symbol: _common_pb2.Symbol
    in_degree: int
    out_degree: int
    community: int
    def __init__(self, symbol: _Optional[_Union[_common_pb2.Symbol, _Mapping]] = ..., in_degree: _Optional[int] = ..., out_degree: _Optional[int] = ..., community: _Optional[int] = ...) -> None: ...

class Bridge(_message.Message):
    __slots__ = ("edge", "from_community", "to_community")
    EDGE_FIELD_NUMBER: _ClassVar[int]
    FROM_COMMUNITY_FIELD_NUMBER: _ClassVar[int]
    TO_COMMUNITY_FIELD_NUMBER: _ClassVar[int]
    edge: CallEdge
    from_community: int
    to_community: int
    def __init__(self, edge: _Optional[_Union[CallEdge, _Mapping]] = ..., from_community: _Optional[int] = ..., to_community: _Optional[int] = ...) -> None: ...

class CommunitiesResponse(_message.Message):
    __slots__ = ("communities", "hubs", "bridges", "modularity", "computed_at")
    COMMUNITIES_FIELD_NUMBER: _ClassVar[int]
    HUBS_FIELD_NUMBER: _ClassVar[int]
    BRIDGES_FIELD_NUMBER: _ClassVar[int]
    MODULARITY_FIELD_NUMBER: _ClassVar[int]
    COMPUTED_AT_FIELD_NUMBER: _ClassVar[int]
    communities: _containers.RepeatedCompositeFieldContainer[Community]
    hubs: _containers.RepeatedCompositeFieldContainer[Hub]
    bridges: _containers.RepeatedCompositeFieldContainer[Bridge]
    modularity: float
    computed_at: _timestamp_pb2.Timestamp
    def __init__(self, communities: _Optional[_Iterable[_Union[Community, _Mapping]]] = ..., hubs: _Optional[_Iterable[_Union[Hub, _Mapping]]] = ..., bridges: _Optional[_Iterable[_Union[Bridge, _Mapping]]] = ..., modularity: _Optional[float] = ..., computed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class StatsRequest(_message.Message):
    __slots__ = ("repo",)
    REPO_FIELD_NUMBER: _ClassVar[int]
    repo: str
    def __init__(self, repo: _Optional[str] = ...) -> None: ...

class StatsResponse(_message.Message):
    __slots__ = ("symbols", "resolved_edges", "ambiguous_edges", "external_calls", "imports", "communities", "last_recompute")
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_EDGES_FIELD_NUMBER: _ClassVar[int]
    AMBIGUOUS_EDGES_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_CALLS_FIELD_NUMBER: _ClassVar[int]
    IMPORTS_FIELD_NUMBER: _ClassVar[int]
    COMMUNITIES_FIELD_NUMBER: _ClassVar[int]
    LAST_RECOMPUTE_FIELD_NUMBER: _ClassVar[int]
    symbols: int
    resolved_edges: int
    ambiguous_edges: int
    external_calls: int
    imports: int
    communities: int
    last_recompute: _timestamp_pb2.Timestamp
    def __init__(self, symbols: _Optional[int] = ..., resolved_edges: _Optional[int] = ..., ambiguous_edges: _Optional[int] = ..., external_calls: _Optional[int] = ..., imports: _Optional[int] = ..., communities: _Optional[int] = ..., last_recompute: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
