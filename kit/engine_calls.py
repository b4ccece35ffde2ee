"""Run a service's blocking engine calls off the event loop, answering domain errors with gRPC codes.

Every servicer has the same shape: an async RPC method converts the request, hands the synchronous engine
call to a bounded thread pool, and turns the engine's exceptions into status codes. `EngineCalls` is that
shape once: known exceptions become their code (optionally logged, e.g. a full disk), anything else is
logged with its traceback and answered INTERNAL without leaking details to the caller.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
import structlog

T = TypeVar("T")
MAX_MESSAGE_CHARS = 1000


@dataclass(frozen=True)
class Answer:
    """How one exception type is answered: its status code and, if set, the level it is logged at."""

    code: grpc.StatusCode
    log_level: str | None = None


def error_message(exc: BaseException, limit: int = MAX_MESSAGE_CHARS) -> str:
    """The error for the client, cut short: messages quote the input, and gRPC refuses metadata over 16 kB."""
    text = str(exc)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class EngineCalls:
    def __init__(
        self, service: str, workers: int, answers: Mapping[type[Exception], grpc.StatusCode | Answer]
    ) -> None:
        self.service = service
        self._answers = {
            kind: answer if isinstance(answer, Answer) else Answer(answer) for kind, answer in answers.items()
        }
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix=service)
        self._log = structlog.get_logger(f"{service}.servicer")

    async def run(
        self, context: grpc.aio.ServicerContext, fn: Callable[..., T], *args: Any, **kwargs: Any
    ) -> T:
        """`fn(*args, **kwargs)` on the pool; a known exception aborts the RPC with its code."""
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._executor, functools.partial(fn, *args, **kwargs)
            )
        except Exception as exc:
            await self.abort(context, exc, getattr(fn, "__name__", str(fn)))
        raise AssertionError("unreachable: context.abort raises")

    async def abort(self, context: grpc.aio.ServicerContext, exc: Exception, method: str = "") -> None:
        """Answer `exc` as run() would (for errors raised outside the pool, e.g. request conversion)."""
        answer = next((a for kind, a in self._answers.items() if isinstance(exc, kind)), None)
        if answer is None:
            self._log.error(f"{self.service}.internal_error", method=method, exc_info=exc)
            await context.abort(
                grpc.StatusCode.INTERNAL,
                f"{self.service}: internal error (details in the {self.service} service log)",
            )
            return
        if answer.log_level is not None:
            getattr(self._log, answer.log_level)(f"{self.service}.{answer.code.name.lower()}", error=str(exc))
        await context.abort(answer.code, error_message(exc))

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
