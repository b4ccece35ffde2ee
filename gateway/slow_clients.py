"""A deadline for a client to send its request line and headers (uvicorn has none: `timeout_keep_alive`
only covers idle time between requests and is reset by every byte, so a client trickling a header held
a connection forever). ASGI middleware cannot help: it runs after the headers are parsed. The body's
deadline is the middleware's (gateway.entrypoints.http.RequestContext).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import structlog
from uvicorn.protocols.http.h11_impl import H11Protocol

log = structlog.get_logger("http")


class HeaderDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head is not complete in time.

    The clock starts when the connection opens and again when the first byte of a later request on a
    kept-alive connection arrives; it stops when the head has been parsed."""

    header_timeout: float = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE and self._head_deadline is None:
            self._arm()
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._head_deadline = self.loop.call_later(self.header_timeout, self._head_too_slow)

    def _disarm(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_too_slow(self) -> None:
        self._head_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            client = f"{self.client[0]}:{self.client[1]}" if self.client else "?"
            log.warning("http.header_timeout", client=client, seconds=self.header_timeout)
            self.transport.close()


def header_deadline_protocol(header_timeout: float) -> type[HeaderDeadlineProtocol]:
    """The protocol class to give uvicorn (`Config(http=...)`) for this deadline."""
    return type("HeaderDeadlineProtocol", (HeaderDeadlineProtocol,), {"header_timeout": header_timeout})
