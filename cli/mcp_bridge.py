"""`reporecall mcp`: MCP over stdio, relayed message for message to the gateway's /mcp endpoint.

The tools live in one place (the gateway); this process only moves JSON-RPC messages between the
client's stdin/stdout and the gateway's streamable-HTTP transport (stateless, JSON replies), adding the
bearer token and repo. It is a small relay on the standard library (http.client, threads), not the mcp
SDK or httpx: Claude Code does not wait for a slow server in `claude -p`, and importing the SDK alone
took ~1 s, so the `initialize` reply must not depend on it.
"""

from __future__ import annotations

import http.client
import json
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import IO, Any
from urllib.parse import urlsplit

Relay = Callable[[bytes], list[bytes]]


def http_relay(url: str, token: str, repo: str = "") -> Relay:
    parts = urlsplit(f"{url.rstrip('/')}/mcp")
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    if repo:
        headers["X-Reporecall-Repo"] = repo
    local = threading.local()  # one keep-alive connection per worker thread
    session: dict[str, str] = {}

    def connection() -> http.client.HTTPConnection:
        if getattr(local, "conn", None) is None:
            cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
            local.conn = cls(parts.hostname or "", parts.port, timeout=300)
        return local.conn  # type: ignore[no-any-return]

    def post(line: bytes) -> http.client.HTTPResponse:
        extra = {"Mcp-Session-Id": session["id"]} if "id" in session else {}
        for attempt in (0, 1):
            conn = connection()
            try:
                conn.request("POST", parts.path, body=line, headers={**headers, **extra})
                return conn.getresponse()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                conn.close()
                local.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def relay(line: bytes) -> list[bytes]:
        reply = post(line)
        body = reply.read()
        if reply.getheader("mcp-session-id"):
            session["id"] = reply.getheader("mcp-session-id") or ""
        if reply.status == 202 or not body.strip():
            return []
        if (reply.getheader("content-type") or "").startswith("text/event-stream"):
            return [
                raw[5:].strip().encode()
                for raw in body.decode().splitlines()
                if raw.startswith("data:") and raw[5:].strip()
            ]
        return [body.strip()]

    return relay


def _error(message_id: Any, text: str) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": message_id, "error": {"code": -32603, "message": text}}
    ).encode()


def serve(relay: Relay, stdin: IO[bytes], stdout: IO[bytes], workers: int = 8) -> None:
    """Read JSON-RPC lines; `initialize` is relayed at once, then requests run concurrently (a slow tool
    call does not hold up `tools/list`); replies are written whole, one per line."""
    lock = threading.Lock()

    def write(lines: list[bytes]) -> None:
        with lock:
            for out in lines:
                stdout.write(out + b"\n")
            stdout.flush()

    def handle(line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            write(
                [
                    json.dumps(
                        {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}}
                    ).encode()
                ]
            )
            return
        try:
            write(relay(line))
        except Exception as exc:  # the gateway is down or slow: answer the request, never hang the client
            if isinstance(message, dict) and "id" in message:
                write([_error(message["id"], f"RepoRecall gateway unreachable ({exc.__class__.__name__})")])

    with ThreadPoolExecutor(workers) as pool:
        for raw in stdin:
            line = raw.strip()
            if not line:
                continue
            if b'"initialize"' in line:
                handle(line)  # first, alone: everything after it may depend on it
            else:
                pool.submit(handle, line)


def run_bridge(url: str, token: str, repo: str = "") -> None:
    serve(http_relay(url, token, repo), sys.stdin.buffer, sys.stdout.buffer)
