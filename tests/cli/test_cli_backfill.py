"""`search --mode vector` and `status` while vectors are still being filled.

A real suite's backfill is over too quickly on a small fixture to be caught reliably, so the gateway here is
a stub answering with the shapes of the real /api/search, /api/repos and /api/ops/index_status replies.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.cli.conftest import run_cli

STATS = {"chunks": "40", "vectors": "10", "embed_backlog": "30", "vector_backend": "embedded-numpy"}


class StubGateway(BaseHTTPRequestHandler):
    hits: list[dict[str, Any]] = []

    def _reply(self, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path == "/api/status":
            self._reply({"gateway": {"status": "SERVING"}, "services": {}, "savings": {}})
        else:
            self._reply({"repos": [{"name": "shop", "path": "/nowhere/shop"}]})

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path == "/api/search":
            self._reply({"hits": self.hits, "partial": True})
        else:
            self._reply({"files": 4, "search": STATS})

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def gateway() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StubGateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join()


def test_vector_search_during_backfill_says_how_far_it_is(gateway: str) -> None:
    StubGateway.hits = []
    result = run_cli("--url", gateway, "--token", "t", "search", "vat", "--repo", "shop", "--mode", "vector")
    assert result.code == 1, result
    assert "vectors are still being filled (10 of 40 chunks embedded)" in result.err, result
    assert "no results" in result.err


def test_vector_search_during_backfill_with_hits_warns_and_succeeds(gateway: str) -> None:
    StubGateway.hits = [
        {
            "score": 0.5,
            "chunk": {
                "path": "src/shop/tax.py",
                "start_line": 6,
                "end_line": 9,
                "kind": "CHUNK_KIND_FUNCTION",
                "qualified_name": "vat_for_country",
            },
        }
    ]
    result = run_cli("--url", gateway, "--token", "t", "search", "vat", "--repo", "shop", "--mode", "vector")
    assert result.code == 0 and "src/shop/tax.py:6-9" in result.out, result
    assert "still being filled" in result.err
    as_json = run_cli(
        "--url", gateway, "--token", "t", "search", "vat", "--repo", "shop", "--mode", "vector", "--json"
    )
    assert json.loads(as_json.out)["vectors"] == {
        "vector_backend": "embedded-numpy",
        "vectors": 10,
        "embed_backlog": 30,
    }


def test_status_shows_backfill_progress(gateway: str) -> None:
    result = run_cli("--url", gateway, "--token", "t", "status")
    assert "vectors   shop: 10 of 40 chunks embedded (25%), 30 still being filled" in result.out, result
