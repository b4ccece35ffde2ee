"""Hostile input, fuzzed with hypothesis, against every public surface and every service's gRPC API.

Surfaces: the two hook endpoints, /api/context, /api/search, /api/ops/{op}, /api/repos, the MCP tools
(JSON-RPC over streamable HTTP) and the gRPC methods of search, graph, memory, indexer and the gateway.
Inputs: wrong types, control characters, RTL overrides, lone surrogates, huge strings, absurd and negative
numbers, unknown enum values, deep nesting, malformed JSON and invalid UTF-8.

The properties: no 5xx and no crash (no child restarted, see `no_restarts`); a hook always answers 200
with `{}` or a valid hookSpecificOutput, fast; every other rejection is a 4xx (or INVALID_ARGUMENT /
NOT_FOUND / FAILED_PRECONDITION on gRPC) whose message names the offending field. Write RPCs get repo
names that are never the registered test repositories, so the shared suite's data survives the fuzz
(checked at the end).
"""

from __future__ import annotations

import json
import time
import urllib.parse
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gateway.entrypoints.http import PUBLIC_OPERATIONS
from gateway.operations import Operations
from reporecall.gateway.v1 import gateway_pb2
from reporecall.graph.v1 import graph_pb2
from reporecall.indexer.v1 import indexer_pb2
from reporecall.memory.v1 import memory_pb2
from reporecall.search.v1 import search_pb2
from tests.reliability.rel_support import FUZZ_CASES, HOOK, holdings, index, make_marker_repo
from tests.suite import Suite

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PROTECTED = {"shop", "harbor", "fuzz"}
PWNED = Path("/tmp/reporecall-fuzz-pwned")
HOOK_SECONDS = 2.5  # the hook deadline is 1.5 s; the rest is HTTP and a busy shared machine

NASTY = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\x1b[31mred\x1b[0m",
    "\u202egnp.exe",
    "\ufeff",
    "\r\n\r\nX-Injected: 1",
    "../../../../etc/passwd",
    "/etc/passwd",
    "..%2F..%2Fetc%2Fpasswd",
    "%2e%2e/%2e%2e/etc/passwd",
    "..\\..\\windows\\win.ini",
    "C:\\Windows",
    "~/.ssh/id_rsa",
    "src/../../..",
    "./../x",
    "'; DROP TABLE chunks; --",
    '" OR 1=1 --',
    "x' }) MATCH (n) DETACH DELETE n //",
    'NEAR(a b) AND c* OR "d',
    'repo = "other" OR path != ""',
    "{{7*7}}",
    "${jndi:ldap://x}",
    "🙂" * 300,
    "a" * 20_000,
    "x" * 100_001,
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "ext::sh -c touch% " + str(PWNED),
    "--upload-pack=touch " + str(PWNED),
    "-rf",
    "file:///etc",
    "null",
    "id:",
    "id:../../x",
]
TEXT = st.one_of(
    st.sampled_from(NASTY),
    st.text(max_size=40),
    st.text(st.characters(max_codepoint=0x20), max_size=20),
    st.text(st.characters(codec="utf-8"), min_size=200, max_size=3000),
)
INTS = st.one_of(
    st.sampled_from([0, -1, 1, 2**31 - 1, -(2**31), 2**63 - 1, 10**30, -(10**30)]), st.integers()
)
JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), INTS, st.floats(allow_nan=False, allow_infinity=False), TEXT
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=10,
)


BASELINE: dict[str, dict[str, int]] = {}


@pytest.fixture(scope="module")
def fuzz(shop: Suite, harbor: Path, tmp_path_factory: pytest.TempPathFactory) -> Suite:
    """A third repository that write operations may scribble on; shop and harbor are compared after."""
    index(shop, make_marker_repo(tmp_path_factory.mktemp("fuzz") / "fuzz", "fuzzmarker"), "fuzz")
    BASELINE.update({repo: holdings(shop, repo) for repo in ("shop", "harbor")})
    return shop


def http_client(suite: Suite) -> httpx.Client:
    return httpx.Client(base_url=suite.url, headers=suite.headers(), timeout=30)


def names_a_field(body: dict[str, Any], fields: set[str]) -> bool:
    text = str(body.get("field", "")) + " " + str(body.get("error", ""))
    return any(name and name in text for name in fields)


def check_api_reply(reply: httpx.Response, fields: set[str]) -> None:
    assert reply.status_code < 500, f"{reply.status_code} {reply.text[:300]}"
    if reply.status_code >= 400 and reply.status_code not in (404, 429):
        body = reply.json()
        assert isinstance(body.get("error"), str) and body["error"], body
        if reply.status_code == 400:
            assert names_a_field(body, fields | {"body", "repo", "op"}), (body, fields)


def check_hook_reply(reply: httpx.Response, seconds: float) -> None:
    assert reply.status_code == 200, reply.text[:300]
    data = reply.json()
    assert data == {} or (
        isinstance(data["hookSpecificOutput"]["additionalContext"], str)
        and len(data["hookSpecificOutput"]["additionalContext"]) <= 10_000
    ), data
    assert seconds < HOOK_SECONDS, f"hook took {seconds:.2f} s"


BASE_SETTINGS = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)


def fuzz_settings(examples: int) -> settings:
    return settings(BASE_SETTINGS, max_examples=examples)


# --- hooks -------------------------------------------------------------------------------------------------


def hook_bodies() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {},
        optional={
            "prompt": st.one_of(TEXT, JSON_VALUES, st.sampled_from(["who calls order_total?", "x" * 99_000])),
            "cwd": st.one_of(TEXT, JSON_VALUES, st.just("/work/main/tests/fixtures/spine")),
            "session_id": st.one_of(TEXT, JSON_VALUES),
            "hook_event_name": st.one_of(TEXT, st.just("UserPromptSubmit")),
            "transcript_path": TEXT,
            "source": TEXT,
        },
    )


REPO_HEADER = st.one_of(
    st.none(),
    st.sampled_from(["shop", "nope", "../shop", "%73hop"]),
    st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=30),
)


@pytest.mark.usefixtures("no_restarts")
def test_hook_endpoints_always_answer_200_quickly(fuzz: Suite) -> None:
    with http_client(fuzz) as http:

        @fuzz_settings(150)
        @given(body=hook_bodies(), repo=REPO_HEADER, endpoint=st.sampled_from([HOOK, "/hooks/session-start"]))
        def case(body: dict[str, Any], repo: str | None, endpoint: str) -> None:
            FUZZ_CASES["hooks"] += 1
            headers = {"X-Reporecall-Repo": repo} if repo else {}
            started = time.monotonic()
            reply = http.post(endpoint, json=body, headers=headers)
            check_hook_reply(reply, time.monotonic() - started)

        case()


# --- the JSON API ------------------------------------------------------------------------------------------

VALID_HINTS: dict[str, st.SearchStrategy[Any]] = {
    "repo": st.sampled_from(["fuzz", "fuzz", "nope", ""]),
    "query": st.sampled_from(["fuzzmarker checksum", "step"]),
    "prompt": st.sampled_from(["how does fuzzmarker_step_1 work", "who calls fuzzmarker_step_0"]),
    "symbol": st.sampled_from(["fuzzmarker_step_0", "id:deadbeef"]),
    "path": st.sampled_from(["src/fuzzmarker/mod0.py", "src/fuzzmarker"]),
    "paths": st.just(["src/fuzzmarker/mod1.py"]),
    "limit": st.integers(1, 10),
    "depth": st.integers(1, 3),
    "mode": st.sampled_from(["hybrid", "keyword", "vector"]),
    "budget_tokens": st.integers(100, 3000),
}


def api_bodies(fields: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    def value(name: str) -> st.SearchStrategy[Any]:
        hint = VALID_HINTS.get(name)
        return st.one_of(hint, JSON_VALUES) if hint is not None else JSON_VALUES

    optional = {name: value(name) for name in fields}
    return st.fixed_dictionaries({}, optional=optional).filter(lambda body: not _protected(body.get("repo")))


def _protected(repo: Any) -> bool:
    return isinstance(repo, str) and repo in PROTECTED - {"fuzz"}


def operation_fields(op: str) -> list[str]:
    import inspect

    names = [
        n
        for n in inspect.signature(getattr(Operations, op)).parameters
        if n not in ("self", "who", "repo", "user")
    ]
    return [*names, "repo", "cwd", "bogus_argument"]


ENDPOINTS: dict[str, list[str]] = {
    "/api/context": ["prompt", "repo", "cwd", "budget_tokens"],
    "/api/search": ["repo", "cwd", "query", "limit", "mode", "path_prefix"],
    **{f"/api/ops/{op}": operation_fields(op) for op in sorted(PUBLIC_OPERATIONS)},
}


@pytest.mark.usefixtures("no_restarts")
@pytest.mark.parametrize("endpoint", sorted(ENDPOINTS))
def test_json_api_rejects_bad_arguments_with_a_4xx_naming_the_field(fuzz: Suite, endpoint: str) -> None:
    fields = set(ENDPOINTS[endpoint])
    examples = 60 if endpoint in ("/api/context", "/api/search") else 25
    with http_client(fuzz) as http:

        @fuzz_settings(examples)
        @given(body=api_bodies(sorted(fields)))
        def case(body: dict[str, Any]) -> None:
            FUZZ_CASES["json api"] += 1
            check_api_reply(http.post(endpoint, json=body), fields)

        case()


SAFE_PATHS = st.one_of(
    st.sampled_from(
        [
            "relative/path",
            "/nonexistent/reporecall-fuzz",
            "",
            "/etc/../nonexistent",
            "ext::sh -c touch% " + str(PWNED),
            "--upload-pack=touch " + str(PWNED),
            "https://127.0.0.1:9/x.git",
            "/nonexistent/\x00nul",
        ]
    ),
    TEXT.map(lambda text: "/nonexistent/" + text),
)


@pytest.mark.usefixtures("no_restarts")
def test_repo_endpoints_reject_bad_names_and_paths(fuzz: Suite) -> None:
    with http_client(fuzz) as http:
        before = http.get("/api/repos").json().get("repos", [])

        @fuzz_settings(120)
        @given(
            name=st.one_of(TEXT, JSON_VALUES),
            path=st.one_of(SAFE_PATHS, JSON_VALUES.filter(lambda v: not isinstance(v, str))),
            action=st.sampled_from(["register", "delete", "status", "index"]),
        )
        def case(name: Any, path: Any, action: str) -> None:
            assume(not _protected(name) and name != "fuzz")
            FUZZ_CASES["repos api"] += 1
            if action == "register":
                reply = http.post("/api/repos", json={"name": name, "path": path})
                check_api_reply(reply, {"name", "path"})
                return
            if not isinstance(name, str) or not name.strip("/") or name in (".", ".."):
                return
            quoted = "/api/repos/" + urllib.parse.quote(name, safe="")
            # Longer request lines are refused by HTTP clients (httpx: "URL too long") before any server.
            assume(len(quoted) <= 8000)
            if action == "delete":
                reply = http.delete(quoted)
            elif action == "status":
                reply = http.get(quoted + "/status")
            else:
                reply = http.post(quoted + "/index", json={})
            check_api_reply(reply, {"name", "repo"})

        case()
        after = http.get("/api/repos").json().get("repos", [])
    assert not PWNED.exists(), "a repository path reached a shell through git"
    assert after == before, "a hostile name or path was registered (or a repository was removed)"


# --- raw bodies: malformed JSON, invalid UTF-8, nesting, size ----------------------------------------------

RAW_BODIES = {
    "empty": b"",
    "truncated": b'{"prompt": "who calls',
    "not an object": b'["prompt"]',
    "a string": b'"who calls order_total"',
    "null": b"null",
    "invalid utf-8": b'{"prompt": "\xff\xfe caf\xe9", "query": "\xc3\x28", "repo": "fuzz"}',
    "lone surrogate": b'{"prompt": "\\ud800 x", "query": "\\udfff", "name": "\\ud83d", "repo": "fuzz"}',
    "nan and infinity": b'{"limit": NaN, "budget_tokens": Infinity, "depth": -Infinity, "repo": "fuzz"}',
    "huge number": b'{"limit": 1' + b"0" * 5000 + b', "repo": "fuzz", "query": "x"}',
    "deep arrays": b"[" * 50_000 + b"]" * 50_000,
    "deep objects": b'{"a":' * 30_000 + b"1" + b"}" * 30_000,
    "deep value": b'{"repo": "fuzz", "query": ' + b"[" * 20_000 + b"]" * 20_000 + b"}",
    "duplicate keys": b'{"repo": "fuzz", "repo": ["fuzz"], "query": "x"}',
    "over the cap": b'{"prompt": "' + b"a" * 1_100_000 + b'"}',
    "just under the cap": b'{"repo": "fuzz", "prompt": "' + b"def f(): pass\\n" * 60_000 + b'"}',
    "nul bytes": b'{"repo": "fuzz\x00", "query": "a\x00b", "prompt": "\x00"}',
}
RAW_ENDPOINTS = [
    "/api/context",
    "/api/search",
    "/api/ops/search",
    "/api/ops/store_memory",
    "/api/ops/callers",
    "/api/repos",
]


@pytest.mark.usefixtures("no_restarts")
@pytest.mark.parametrize("kind", sorted(RAW_BODIES))
def test_malformed_bodies_get_an_empty_hook_reply(fuzz: Suite, kind: str) -> None:
    with http_client(fuzz) as http:
        for endpoint in (HOOK, "/hooks/session-start"):
            FUZZ_CASES["raw bodies"] += 1
            started = time.monotonic()
            reply = http.post(
                endpoint, content=RAW_BODIES[kind], headers={"Content-Type": "application/json"}
            )
            check_hook_reply(reply, time.monotonic() - started)


@pytest.mark.usefixtures("no_restarts")
@pytest.mark.parametrize("kind", sorted(RAW_BODIES))
def test_malformed_bodies_get_a_4xx_naming_the_problem(fuzz: Suite, kind: str) -> None:
    with http_client(fuzz) as http:
        for endpoint in RAW_ENDPOINTS:
            FUZZ_CASES["raw bodies"] += 1
            reply = http.post(
                endpoint, content=RAW_BODIES[kind], headers={"Content-Type": "application/json"}
            )
            check_api_reply(
                reply, {"prompt", "query", "limit", "name", "repo", "budget_tokens", "depth", "path"}
            )


@pytest.mark.usefixtures("no_restarts")
def test_a_body_streamed_without_length_is_capped(fuzz: Suite) -> None:
    """Chunked transfer (no Content-Length) must not get past the 1 MB cap either."""

    def chunks() -> Any:
        yield b'{"prompt": "'
        for _ in range(64):
            yield b"a" * 65_536
        yield b'"}'

    FUZZ_CASES["raw bodies"] += 2
    with http_client(fuzz) as http:
        reply = http.post("/api/context", content=chunks(), headers={"Content-Type": "application/json"})
        assert reply.status_code in (400, 413), reply.text[:200]
        started = time.monotonic()
        hook = http.post(HOOK, content=chunks(), headers={"Content-Type": "application/json"})
        check_hook_reply(hook, time.monotonic() - started)


# --- MCP -----------------------------------------------------------------------------------------------------

MCP_TOOLS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "search_code": {"query": TEXT, "limit": INTS, "mode": TEXT, "path_prefix": TEXT, "language": TEXT},
    "get_context": {"question": TEXT, "budget_tokens": INTS},
    "code_graph": {
        "action": st.sampled_from(
            [
                "symbol",
                "callers",
                "callees",
                "call_tree",
                "call_path",
                "imports",
                "importers",
                "communities",
                "bogus",
            ]
        ),
        "symbol": TEXT,
        "target": TEXT,
        "path": TEXT,
        "depth": INTS,
    },
    "file_summary": {"path": TEXT},
    "memory": {
        "action": st.sampled_from(["recall", "store", "forget", "list", "bogus"]),
        "query": TEXT,
        "name": TEXT,
        "body": TEXT,
        "description": TEXT,
        "id": TEXT,
        "memory_class": st.sampled_from(["rule", "fact", "nope"]),
        "scope": st.sampled_from(["project", "user", "nope"]),  # not global: every repo's by design
        "branch": TEXT,
    },
    "feedback": {"chunk_id": TEXT, "useful": st.one_of(st.booleans(), JSON_VALUES), "query": TEXT},
    "index": {
        "action": st.sampled_from(["status", "refresh", "bogus"]),
        "paths": st.one_of(st.lists(TEXT, max_size=4), JSON_VALUES),
    },
}


def mcp_arguments(tool: str) -> st.SearchStrategy[dict[str, Any]]:
    fields = {name: st.one_of(strategy, JSON_VALUES) for name, strategy in MCP_TOOLS[tool].items()}
    fields["repo"] = st.sampled_from(["fuzz", "fuzz", "nope", ""])
    return st.fixed_dictionaries({}, optional=fields)


def mcp_call(http: httpx.Client, tool: str, arguments: Any) -> httpx.Response:
    return http.post(
        "/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        },
        headers={"Accept": "application/json, text/event-stream", "X-Reporecall-Repo": "fuzz"},
    )


@pytest.mark.usefixtures("no_restarts")
@pytest.mark.parametrize("tool", sorted(MCP_TOOLS))
def test_mcp_tools_report_bad_arguments_as_tool_errors_naming_the_argument(fuzz: Suite, tool: str) -> None:
    fields = {*MCP_TOOLS[tool], "repo", "action"}
    with http_client(fuzz) as http:

        @fuzz_settings(45)
        @given(arguments=mcp_arguments(tool))
        def case(arguments: dict[str, Any]) -> None:
            FUZZ_CASES["mcp"] += 1
            reply = mcp_call(http, tool, arguments)
            assert reply.status_code == 200, reply.text[:300]
            message = reply.json()
            assert "error" not in message, message  # a JSON-RPC error means the server, not the tool, failed
            result = message["result"]
            if result.get("isError"):
                text = result["content"][0]["text"]
                assert any(name in text for name in fields), text
                assert "Traceback" not in text and "Internal" not in text, text

        case()


@pytest.mark.usefixtures("no_restarts")
def test_mcp_endpoint_rejects_malformed_json_rpc(fuzz: Suite) -> None:
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    bodies = [
        b"",
        b"{",
        b"[]",
        b"null",
        b'{"jsonrpc": "2.0"}',
        b'{"jsonrpc":"2.0","id":1,"method":"nope"}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{}}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_code","arguments":[]}}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_code",'
        b'"arguments":{"query":"\xff\xfe","repo":"fuzz"}}}',
        b"[" * 50_000 + b"]" * 50_000,
        b'{"jsonrpc":"2.0","id":' + b"9" * 10_000 + b',"method":"tools/list"}',
        RAW_BODIES["over the cap"],
    ]
    with http_client(fuzz) as http:
        for body in bodies:
            FUZZ_CASES["mcp"] += 1
            reply = http.post("/mcp", content=body, headers=headers)
            assert reply.status_code < 500, (body[:80], reply.status_code, reply.text[:300])


# --- gRPC ------------------------------------------------------------------------------------------------------

MODULES = {
    "search": search_pb2,
    "graph": graph_pb2,
    "memory": memory_pb2,
    "indexer": indexer_pb2,
    "gateway": gateway_pb2,
}
ACCEPTED_CODES = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.OUT_OF_RANGE,
    grpc.StatusCode.PERMISSION_DENIED,
}
_SCALARS: dict[int, st.SearchStrategy[Any]] = {
    FieldDescriptor.TYPE_STRING: TEXT,
    FieldDescriptor.TYPE_BOOL: st.booleans(),
    FieldDescriptor.TYPE_INT32: st.one_of(
        st.sampled_from([0, -1, 1, 2**31 - 1, -(2**31)]), st.integers(-(2**31), 2**31 - 1)
    ),
    FieldDescriptor.TYPE_INT64: st.one_of(
        st.sampled_from([0, -1, 2**63 - 1, -(2**63)]), st.integers(-(2**63), 2**63 - 1)
    ),
    FieldDescriptor.TYPE_DOUBLE: st.floats(),
    FieldDescriptor.TYPE_FLOAT: st.floats(width=32),
    FieldDescriptor.TYPE_BYTES: st.binary(max_size=64),
    FieldDescriptor.TYPE_ENUM: st.integers(-3, 12) | st.sampled_from([2**31 - 1, -(2**31)]),
}


def message_strategy(descriptor: Descriptor, depth: int = 0) -> st.SearchStrategy[Any]:
    cls = message_factory.GetMessageClass(descriptor)
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for field in descriptor.fields:
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if depth >= 2:
                continue
            value: st.SearchStrategy[Any] = message_strategy(field.message_type, depth + 1)
        else:
            value = _SCALARS[field.type]
        if field.name == "repo":
            value = st.one_of(st.sampled_from(["", "fuzz-grpc", "nope"]), TEXT).filter(
                lambda r: not _protected(r)
            )
        if field.name == "path" and descriptor.name == "RegisterRepoRequest":
            value = SAFE_PATHS
        if field.name == "scope" and descriptor.name == "Memory":
            # A global memory is every repo's by design (it would show in shop's and harbor's holdings).
            value = value.filter(lambda scope: scope != memory_pb2.MEMORY_SCOPE_GLOBAL)
        fields[field.name] = st.lists(value, max_size=4) if field.is_repeated else value

    def build(values: dict[str, Any]) -> Any:
        message = cls()
        for name, value in values.items():
            field = descriptor.fields_by_name[name]
            if field.is_repeated:
                target = getattr(message, name)
                if field.type == FieldDescriptor.TYPE_MESSAGE:
                    for item in value:
                        target.add().CopyFrom(item)
                else:
                    target.extend(value)
            elif field.type == FieldDescriptor.TYPE_MESSAGE:
                getattr(message, name).CopyFrom(value)
            else:
                setattr(message, name, value)
        return message

    return st.fixed_dictionaries({}, optional=fields).map(build)


def field_names(descriptor: Descriptor, depth: int = 0) -> set[str]:
    names = {f.name for f in descriptor.fields}
    for field in descriptor.fields:
        if field.type == FieldDescriptor.TYPE_MESSAGE and depth < 3:
            names |= field_names(field.message_type, depth + 1)
    return names


def methods() -> list[tuple[str, MethodDescriptor]]:
    found = []
    for service, module in MODULES.items():
        for descriptor in module.DESCRIPTOR.services_by_name.values():
            found.extend((service, method) for method in descriptor.methods)
    return found


def call(channel: grpc.Channel, method: MethodDescriptor, request: Any, timeout: float = 20) -> None:
    path = f"/{method.containing_service.full_name}/{method.name}"
    reply_cls = message_factory.GetMessageClass(method.output_type)
    if method.server_streaming:
        for _ in channel.unary_stream(
            path,
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=reply_cls.FromString,
        )(request, timeout=timeout):
            pass
    else:
        channel.unary_unary(
            path,
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=reply_cls.FromString,
        )(request, timeout=timeout)


def _param(service: str, method: MethodDescriptor) -> Any:
    return pytest.param(service, method, id=f"{service}-{method.name}")


@pytest.mark.usefixtures("no_restarts")
@pytest.mark.parametrize(("service", "method"), [_param(*m) for m in methods()])
def test_grpc_methods_reject_bad_requests_with_invalid_argument_naming_the_field(
    fuzz: Suite, service: str, method: MethodDescriptor
) -> None:
    names = field_names(method.input_type)
    with fuzz.service_channel(service) as channel:

        @fuzz_settings(30)
        @given(request=message_strategy(method.input_type))
        def case(request: Any) -> None:
            FUZZ_CASES["grpc"] += 1
            try:
                call(channel, method, request)
            except grpc.RpcError as exc:
                code, details = exc.code(), exc.details() or ""
                assert code in ACCEPTED_CODES, f"{method.name}: {code.name} {details[:300]}"
                if code is grpc.StatusCode.INVALID_ARGUMENT:
                    assert any(name in details for name in names), f"{method.name}: {details[:300]}"

        case()


@pytest.mark.usefixtures("no_restarts")
@pytest.mark.parametrize(
    ("service", "method"),
    [
        _param(*m)
        for m in methods()
        if m[1].input_type.fields and m[1].input_type.fields[0].type == FieldDescriptor.TYPE_STRING
    ],
)
def test_grpc_methods_reject_undecodable_and_oversized_requests(
    fuzz: Suite, service: str, method: MethodDescriptor
) -> None:
    """Invalid UTF-8 in a string field fails in the deserializer, before the servicer; kit turns it into
    INVALID_ARGUMENT (grpc.aio alone says UNKNOWN). A 5 MB field is refused or answered, never a crash."""
    first = method.input_type.fields[0]
    raw = bytes([(first.number << 3) | 2, 4]) + b"\xff\xfe\xc3\x28"
    path = f"/{method.containing_service.full_name}/{method.name}"
    with fuzz.service_channel(service) as channel:
        FUZZ_CASES["grpc"] += 2
        rpc = (channel.unary_stream if method.server_streaming else channel.unary_unary)(
            path, request_serializer=lambda b: b, response_deserializer=lambda b: b
        )
        with pytest.raises(grpc.RpcError) as raised:
            result = rpc(raw, timeout=10)
            if method.server_streaming:
                list(result)
        assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert raised.value.details().startswith("request: "), raised.value.details()
        big = bytes([(first.number << 3) | 2]) + _varint(5 * 1024 * 1024) + b"a" * (5 * 1024 * 1024)
        try:
            result = rpc(big, timeout=30)
            if method.server_streaming:
                list(result)
        except grpc.RpcError as exc:
            assert exc.code() in ACCEPTED_CODES | {grpc.StatusCode.RESOURCE_EXHAUSTED}, exc.details()


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


# --- regression tests for the bugs the fuzzers found (minimal reproducers) ----------------------------------


def test_search_with_a_list_as_mode_is_a_400(fuzz: Suite) -> None:
    FUZZ_CASES["reproducers"] += 1
    reply = fuzz.post("/api/search", {"repo": "fuzz", "query": "checksum", "mode": ["keyword"]})
    assert reply.status_code == 400 and reply.json()["field"] == "mode", reply.text


def test_mcp_code_graph_names_the_symbol_argument(fuzz: Suite) -> None:
    FUZZ_CASES["reproducers"] += 1
    with http_client(fuzz) as http:
        result = mcp_call(http, "code_graph", {"action": "symbol", "symbol": "", "repo": "fuzz"}).json()[
            "result"
        ]
    assert result["isError"] and "symbol" in result["content"][0]["text"], result


def test_store_memory_rejects_related_files_that_is_not_a_list(fuzz: Suite) -> None:
    FUZZ_CASES["reproducers"] += 1
    reply = fuzz.post(
        "/api/ops/store_memory",
        {"repo": "fuzz", "name": "files as text", "body": "b", "related_files": "app"},
    )
    assert reply.status_code == 400 and reply.json()["field"] == "related_files", reply.text


def test_forget_memory_names_the_memory_id_argument(fuzz: Suite) -> None:
    FUZZ_CASES["reproducers"] += 1
    reply = fuzz.post("/api/ops/forget_memory", {"repo": "fuzz", "memory_id": ""})
    assert reply.status_code == 400 and reply.json()["field"] == "memory_id", reply.text


def test_fuzzing_left_the_other_repositories_intact(fuzz: Suite) -> None:
    """Runs last in this module: whatever the write RPCs did, shop and harbor hold exactly what they held."""
    assert BASELINE and {repo: holdings(fuzz, repo) for repo in BASELINE} == BASELINE
    print(f"\nfuzz cases tried: {json.dumps(dict(FUZZ_CASES))} (total {sum(FUZZ_CASES.values())})")
