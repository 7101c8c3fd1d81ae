from __future__ import annotations

import asyncio
import threading
from typing import Any, Mapping, Optional

import pytest
from fakes import EXAMPLE_A_ANSWER, FakeTransport, Sent, error, ok

from offload_gate import GATE_UNAVAILABLE, GATE_UNREACHABLE, AsyncGateClient, GateError, Outcome, Response

OPUS = {"model_name": "claude-opus-4-6", "output_tokens": 20_000}


class HangingTransport:
    """Never answers until released: stands in for a gate that accepted the connection and went quiet."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def request(self, method: str, path: str, body: Optional[bytes], headers: Mapping[str, str], timeout: float) -> Response:
        self.release.wait(30)
        raise TimeoutError("released")

    def close(self) -> None:
        self.release.set()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_the_async_client_decides_like_the_blocking_one() -> None:
    transport = FakeTransport([ok(EXAMPLE_A_ANSWER)])

    async def main() -> Any:
        async with AsyncGateClient("http://gate.test", transport=transport) as gate:
            return await gate.decide(**OPUS)

    decision = run(main())
    assert decision.fire is True and decision.net_saving_usd == 0.38925000000000004
    assert transport.sent[0].path == "/v1/gate" and transport.closed


def test_a_gate_that_goes_quiet_is_abandoned_at_the_timeout_with_a_no_fire_decision() -> None:
    transport = HangingTransport()

    async def main() -> Any:
        gate = AsyncGateClient("http://gate.test", timeout=0.05, transport=transport)
        try:
            return await gate.decide(**OPUS)
        finally:
            transport.release.set()

    decision = run(main())
    assert (decision.fire, decision.reason_code) == (False, GATE_UNREACHABLE)
    assert "0.05s timeout" in decision.reason


def test_the_async_client_retries_a_503_and_can_raise_when_asked() -> None:
    transport = FakeTransport([error(503, "unavailable", "busy", Retry_After="0"), ok(EXAMPLE_A_ANSWER)])
    failing = FakeTransport([error(503, "unavailable", "busy", Retry_After="0")])

    async def main() -> Any:
        retried = await AsyncGateClient("http://gate.test", transport=transport).decide(**OPUS)
        gate = AsyncGateClient("http://gate.test", transport=failing, max_retries=1)
        fallback = await gate.decide(**OPUS)
        with pytest.raises(GateError) as caught:
            await gate.decide(**OPUS, raise_on_error=True)
        return retried, fallback, caught.value

    retried, fallback, raised = run(main())
    assert retried.fire is True and len(transport.sent) == 2
    assert fallback.reason_code == GATE_UNAVAILABLE and raised.reason_code == GATE_UNAVAILABLE
    assert len(failing.sent) == 4


def test_the_async_batch_plan_and_reports_use_the_same_routes() -> None:
    def answer(sent: Sent) -> Response:
        if sent.path == "/v1/gate/batch":
            return ok({"decisions": [EXAMPLE_A_ANSWER for _ in sent.body["items"]]})
        if sent.path == "/v1/plan":
            return ok({"stub": [], "reason_code": "plan_not_positive"})
        return ok({"results": [{"status": "accepted"} for _ in sent.body["items"]]})

    transport = FakeTransport([answer])

    async def main() -> Any:
        gate = AsyncGateClient("http://gate.test", transport=transport)
        return (
            await gate.decide_batch([OPUS, OPUS]),
            await gate.plan(model_name="claude-opus-4-6", segments=[{"tokens": 1}]),
            await gate.report_outcomes([Outcome("d-1", 3, False)]),
            await gate.report_session(session_id="s-1", model_name="claude-opus-4-6", turns=3, usage={}),
        )

    batch, plan, outcomes, session = run(main())
    assert len(batch) == 2 and plan.reason_code == "plan_not_positive"
    assert outcomes.ok and session.ok
    assert [s.path for s in transport.sent] == ["/v1/gate/batch", "/v1/plan", "/v1/outcomes", "/v1/sessions"]


def test_concurrent_async_decisions_each_get_their_answer() -> None:
    transport = FakeTransport([lambda sent: ok(dict(EXAMPLE_A_ANSWER, decision_id=sent.body["session_id"]))])

    async def main() -> Any:
        gate = AsyncGateClient("http://gate.test", transport=transport)
        return await asyncio.gather(*(gate.decide(**OPUS, session_id=f"s{i}") for i in range(20)))

    decisions = run(main())
    assert sorted(d.decision_id for d in decisions) == sorted(f"s{i}" for i in range(20))


def test_requests_in_flight_at_once_are_bounded_by_the_clients_pool_not_the_default_executor() -> None:
    together = threading.Barrier(12, timeout=10)

    class Gathering:
        """Answers only once 12 requests are in flight at the same time."""

        def request(self, method: str, path: str, body: Optional[bytes], headers: Mapping[str, str], timeout: float) -> Response:
            together.wait()
            return ok(EXAMPLE_A_ANSWER)

        def close(self) -> None:
            pass

    async def main() -> Any:
        async with AsyncGateClient("http://gate.test", timeout=15, transport=Gathering(), pool_size=12) as gate:
            return await asyncio.gather(*(gate.decide(**OPUS) for _ in range(12)))

    decisions = run(main())
    assert [d.fallback for d in decisions] == [False] * 12
