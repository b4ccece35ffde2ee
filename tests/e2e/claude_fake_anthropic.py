"""A local stand-in for the Anthropic Messages API: streams a scripted SSE reply and records every request."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeAnthropic:
    def __init__(self, reply_text: str = "ok", tool_use: dict[str, Any] | None = None) -> None:
        """`tool_use` ({"name", "input"}): the first model turn calls that tool; later turns answer text."""
        self.requests: list[dict[str, Any]] = []
        self.tool_use = tool_use
        self.turns = 0
        self.reply_text = reply_text
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                data = json.loads(body or b"{}")
                fake.requests.append({"path": self.path, "body": data})
                if "count_tokens" in self.path:
                    return self._json({"input_tokens": 10})
                if not self.path.startswith("/v1/messages"):
                    return self._json({}, 404)
                if not data.get("stream"):
                    return self._json(fake.message())
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                for event, payload in fake.events(data):
                    self.wfile.write(f"event: {event}\ndata: {json.dumps(payload)}\n\n".encode())
                self.wfile.flush()

            def _json(self, payload: Any, status: int = 200) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def message(self) -> dict[str, Any]:
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": self.reply_text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        }

    def events(self, request: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        start = {**self.message(), "content": [], "stop_reason": None}
        offered = {t.get("name") for t in request.get("tools", [])}
        if self.tool_use and self.turns == 0 and self.tool_use["name"] in offered:
            self.turns += 1
            block = {"type": "tool_use", "id": "toolu_rr1", "name": self.tool_use["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(self.tool_use["input"])}
            return [
                ("message_start", {"type": "message_start", "message": start}),
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                        "usage": {"output_tokens": 5},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        return [
            ("message_start", {"type": "message_start", "message": start}),
            (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            ),
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": self.reply_text},
                },
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 1},
                },
            ),
            ("message_stop", {"type": "message_stop"}),
        ]

    def close(self) -> None:
        self.server.shutdown()
