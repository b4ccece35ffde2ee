"""EngineCalls: engine work runs off the event loop; domain errors become their gRPC codes."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import grpc
import pytest
import structlog

from kit.engine_calls import Answer, EngineCalls


class Aborted(Exception):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(details)
        self.code, self.details = code, details


class FakeContext:
    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise Aborted(code, details)


class Missing(Exception):
    pass


class Full(Exception):
    pass


@pytest.fixture
def calls() -> Iterator[EngineCalls]:
    made = EngineCalls(
        "things",
        2,
        {Missing: grpc.StatusCode.NOT_FOUND, Full: Answer(grpc.StatusCode.RESOURCE_EXHAUSTED, "error")},
    )
    yield made
    made.close()


async def test_results_come_back_from_a_worker_thread(calls: EngineCalls) -> None:
    ran_on = await calls.run(FakeContext(), lambda x, y=0: (threading.current_thread().name, x + y), 2, y=3)
    assert ran_on[0].startswith("things") and ran_on[1] == 5


async def test_known_errors_get_their_code_and_a_bounded_message(calls: EngineCalls) -> None:
    def missing() -> None:
        raise Missing("no such thing: " + "x" * 5000)

    with pytest.raises(Aborted) as caught:
        await calls.run(FakeContext(), missing)
    assert caught.value.code is grpc.StatusCode.NOT_FOUND
    assert caught.value.details.startswith("no such thing") and len(caught.value.details) <= 1000


async def test_logged_answers_and_unexpected_errors(calls: EngineCalls) -> None:
    def full() -> None:
        raise Full("disk full")

    def broken() -> None:
        raise KeyError("secret internals")

    with structlog.testing.capture_logs() as logs:
        with pytest.raises(Aborted) as caught:
            await calls.run(FakeContext(), full)
        assert caught.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
        with pytest.raises(Aborted) as caught:
            await calls.run(FakeContext(), broken)
    assert caught.value.code is grpc.StatusCode.INTERNAL
    assert "secret" not in caught.value.details and "things service log" in caught.value.details
    assert [(e["event"], e["log_level"]) for e in logs] == [
        ("things.resource_exhausted", "error"),
        ("things.internal_error", "error"),
    ]
