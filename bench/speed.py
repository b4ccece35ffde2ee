"""Speed probes against a running suite: hook latency under concurrency, gRPC p99, index, backfill, RSS."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import string
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc

from bench.scoring import latency_summary
from kit.service_auth import authorized_channel
from reporecall.graph.v1 import graph_pb2, graph_pb2_grpc
from reporecall.search.v1 import search_pb2, search_pb2_grpc


def hook_payload(prompt: str, cwd: str) -> dict[str, Any]:
    """The body Claude Code posts for UserPromptSubmit (a fresh session per prompt: no session effects)."""
    session = str(uuid.uuid4())
    return {
        "session_id": session,
        "transcript_path": f"/tmp/claude/{session}.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


class _Connection:
    """One keep-alive HTTP/1.1 connection that posts JSON and reads the reply (Content-Length bodies only).

    The load generator shares the two cores with the suite it measures; httpx spends ~2 ms of CPU per
    request, which would be taken from the gateway's. Requests here cost ~0.1 ms."""

    def __init__(self, host: str, port: int, headers: dict[str, str]) -> None:
        self.host, self.port = host, port
        self.head = "".join(f"{k}: {v}\r\n" for k, v in {"Host": f"{host}:{port}", **headers}.items())
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: dict[str, Any], timeout: float = 30.0) -> tuple[int, bytes]:
        """One request; a connection the server closed while idle is reopened once."""
        try:
            return await asyncio.wait_for(self._post(path, body), timeout)
        except (asyncio.IncompleteReadError, ConnectionError):
            await self.close()
            return await asyncio.wait_for(self._post(path, body), timeout)

    async def _post(self, path: str, body: dict[str, Any]) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            sock = self.writer.get_extra_info("socket")
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        assert self.reader is not None
        payload = json.dumps(body).encode()
        self.writer.write(
            f"POST {path} HTTP/1.1\r\n{self.head}Content-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n".encode()
            + payload
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        fields = {
            k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)
        }
        if "content-length" not in fields:
            raise RuntimeError(
                f"reply without Content-Length (status {status}): this client reads no other kind"
            )
        data = await self.reader.readexactly(int(fields["content-length"]))
        if fields.get("connection", "").lower() == "close":
            await self.close()
        return status, data

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()
            self.reader = self.writer = None


async def _hook_load(
    url: str,
    token: str,
    repo: str,
    cwd: str,
    prompts: Sequence[str],
    clients: int,
    per_client: int,
    chat: frozenset[str],
) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}", "X-Reporecall-Repo": repo}
    target = urlsplit(url)
    host, port = target.hostname or "127.0.0.1", target.port or 80
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    empty = 0
    connections = [_Connection(host, port, headers) for _ in range(clients)]

    async def worker(offset: int) -> None:
        nonlocal empty
        for i in range(per_client):
            prompt = prompts[(offset * per_client + i) % len(prompts)]
            started = time.perf_counter()
            status, data = await connections[offset].post("/hooks/prompt-context", hook_payload(prompt, cwd))
            latencies.append((time.perf_counter() - started) * 1000)
            statuses[str(status)] = statuses.get(str(status), 0) + 1
            if status == 200 and not json.loads(data) and prompt not in chat:
                empty += 1  # a code prompt got no context (deadline overrun, error or a false skip)

    try:
        # one warm-up request per connection so connection set-up is not measured
        await asyncio.gather(
            *(c.post("/hooks/prompt-context", hook_payload(prompts[0], cwd)) for c in connections)
        )
        started = time.perf_counter()
        await asyncio.gather(*(worker(c) for c in range(clients)))
        wall = time.perf_counter() - started
    finally:
        for c in connections:
            await c.close()
    return {
        **latency_summary(latencies),
        "clients": clients,
        "statuses": statuses,
        "empty_code_replies": empty,
        "requests_per_second": round(len(latencies) / wall, 1) if wall else 0.0,
    }


def hook_latency(
    url: str,
    token: str,
    repo: str,
    cwd: str,
    prompts: Sequence[str],
    clients: int,
    per_client: int,
    chat: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Latency of the hook with `clients` concurrent clients, each posting `per_client` prompts in turn.

    `chat` holds the prompts that should be skipped; an empty reply to any other prompt is counted.
    """
    return asyncio.run(_hook_load(url, token, repo, cwd, prompts, clients, per_client, chat))


def _timed(calls: Sequence[Callable[[], Any]]) -> dict[str, Any]:
    latencies, errors = [], 0
    for call in calls:
        started = time.perf_counter()
        try:
            call()
        except grpc.RpcError:
            errors += 1
        latencies.append((time.perf_counter() - started) * 1000)
    return {**latency_summary(latencies), "errors": errors}


def grpc_search_latency(
    address: str, token: str, repo: str, queries: Sequence[str], rounds: int
) -> dict[str, Any]:
    with authorized_channel(address, token) as channel:
        stub = search_pb2_grpc.SearchServiceStub(channel)
        request = search_pb2.SearchRequest
        hybrid = search_pb2.SEARCH_MODE_HYBRID
        stub.Search(request(query=queries[0], repo=repo, limit=10, mode=hybrid), timeout=30)  # warm-up
        calls = [
            (lambda q=q: stub.Search(request(query=q, repo=repo, limit=10, mode=hybrid), timeout=30))
            for _ in range(rounds)
            for q in queries
        ]
        return _timed(calls)


def grpc_call_tree_latency(
    address: str, token: str, repo: str, seeds: Sequence[str], rounds: int
) -> dict[str, Any]:
    with authorized_channel(address, token) as channel:
        stub = graph_pb2_grpc.GraphServiceStub(channel)
        request = graph_pb2.CallTreeRequest
        calls = [
            (
                lambda s=s: stub.CallTree(
                    request(repo=repo, seed=graph_pb2.SymbolRef(name=s), up=2, down=2, branch=8), timeout=30
                )
            )
            for _ in range(rounds)
            for s in seeds
        ]
        return _timed(calls)


def search_stats(address: str, token: str, repo: str) -> search_pb2.StatsResponse:
    with authorized_channel(address, token) as channel:
        return search_pb2_grpc.SearchServiceStub(channel).Stats(
            search_pb2.StatsRequest(repo=repo), timeout=10
        )


def wait_for_vectors(
    address: str, token: str, repo: str, timeout: float, interval: float = 1.0
) -> dict[str, Any]:
    """Poll search Stats until the embed backlog of `repo` is empty (vectors on) or `timeout` passes."""
    deadline = time.monotonic() + timeout
    stats = search_stats(address, token, repo)
    while time.monotonic() < deadline:
        stats = search_stats(address, token, repo)
        if stats.vector_backend == "none" or (stats.embed_backlog == 0 and stats.vectors > 0):
            break
        time.sleep(interval)
    done = stats.embed_backlog == 0
    return {
        "done": done,
        "chunks": stats.chunks,
        "vectors": stats.vectors,
        "embed_backlog": stats.embed_backlog,
        "vector_backend": stats.vector_backend,
        "embedder": stats.embedder,
    }


def peak_rss_mib(pid: int) -> float | None:
    """VmHWM (peak resident set) of a live process, in MiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def incremental_latency(
    search: Callable[[str], list[dict[str, Any]]], file: Path, trials: int, timeout: float = 30.0
) -> dict[str, Any]:
    """Append a function with a fresh token to `file` (watch mode picks it up) and time until search finds it.

    The file is restored afterwards. `search(token)` returns hits as dicts with `chunk.path`.
    """
    original = file.read_bytes()
    suffix = file.suffix
    latencies: list[float] = []
    misses = 0
    try:
        for trial in range(trials):
            token = "benchmarker" + "".join(random.choices(string.ascii_lowercase, k=10))
            if suffix == ".py":
                addition = f"\n\ndef {token}_{trial}():\n    return '{token}'\n"
            else:
                addition = f"\n\nexport function {token}_{trial}() {{\n  return '{token}';\n}}\n"
            started = time.perf_counter()
            file.write_bytes(original + addition.encode())
            found = False
            while time.perf_counter() - started < timeout:
                if any(
                    token in (h.get("chunk", {}).get("content", "") + h.get("chunk", {}).get("name", ""))
                    for h in search(token)
                ):
                    found = True
                    break
                time.sleep(0.02)
            if found:
                latencies.append((time.perf_counter() - started) * 1000)
            else:
                misses += 1
            file.write_bytes(original)
            time.sleep(1.0)  # let the restore be indexed before the next trial
    finally:
        file.write_bytes(original)
    return {**latency_summary(latencies), "misses": misses, "file": file.name}
