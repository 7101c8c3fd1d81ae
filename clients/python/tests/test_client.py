from __future__ import annotations

import logging
from typing import Any

import pytest
from fakes import EXAMPLE_A_ANSWER, FakeClock, FakeTransport, Sent, error, ok

from offload_gate import (
    GATE_BAD_ANSWER,
    GATE_INVALID_REQUEST,
    GATE_RATE_LIMITED,
    GATE_UNAUTHORIZED,
    GATE_UNAVAILABLE,
    GATE_UNREACHABLE,
    GateClient,
    GateError,
    GateRequest,
    Outcome,
    Response,
    Segment,
)

OPUS = {"model_name": "claude-opus-4-6", "output_tokens": 20_000, "horizon": 4, "recall_probability": 0.3}


def client_for(*answers: Any, timeout: float = 2.0, latency: float = 0.0, **options: Any) -> tuple[GateClient, FakeTransport, FakeClock]:
    clock = FakeClock()
    transport = FakeTransport(list(answers), clock=clock, latency=latency)
    client = GateClient("http://gate.test", timeout=timeout, transport=transport, sleep=clock.sleep, clock=clock, **options)
    return client, transport, clock


def test_decide_posts_the_fields_to_v1_gate_and_returns_the_decision() -> None:
    client, transport, _ = client_for(ok(EXAMPLE_A_ANSWER))
    decision = client.decide(**OPUS)
    assert decision.fire is True and decision.net_saving_usd == 0.38925000000000004
    assert [(s.method, s.path, s.body) for s in transport.sent] == [("POST", "/v1/gate", OPUS)]
    assert transport.sent[0].headers["content-type"] == "application/json"
    assert transport.sent[0].headers["user-agent"].startswith("offload-gate-python/")


def test_decide_takes_a_request_object_with_keyword_overrides() -> None:
    client, transport, _ = client_for(ok(EXAMPLE_A_ANSWER))
    client.decide(GateRequest(model_name="gpt-5", output_chars=80_000), session_id="s-1")
    assert transport.sent[0].body == {"model_name": "gpt-5", "output_chars": 80_000, "session_id": "s-1"}


def test_the_gate_key_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OFFLOAD_GATE_API_KEY", "env-key-0123456789abcdef")
    monkeypatch.setenv("OFFLOAD_GATE_URL", "http://from-env.test")
    transport = FakeTransport([ok(EXAMPLE_A_ANSWER)])
    client = GateClient(transport=transport)
    client.decide(**OPUS)
    assert client.base_url == "http://from-env.test"
    assert transport.sent[0].headers["authorization"] == "Bearer env-key-0123456789abcdef"
    assert "env-key" not in repr(client)


def test_an_explicit_key_wins_over_the_environment_and_no_key_sends_no_header(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OFFLOAD_GATE_API_KEY", "env-key-0123456789abcdef")
    transport = FakeTransport([ok(EXAMPLE_A_ANSWER)])
    GateClient("http://gate.test", api_key="explicit-0123456789abcdef", transport=transport).decide(**OPUS)
    assert transport.sent[0].headers["authorization"] == "Bearer explicit-0123456789abcdef"
    monkeypatch.delenv("OFFLOAD_GATE_API_KEY")
    GateClient("http://gate.test", transport=transport).decide(**OPUS)
    assert "authorization" not in transport.sent[1].headers


def test_an_unreachable_gate_gives_a_no_fire_decision_instead_of_raising(caplog: pytest.LogCaptureFixture) -> None:
    client, _, _ = client_for(ConnectionRefusedError(111, "Connection refused"))
    with caplog.at_level(logging.WARNING, logger="offload_gate"):
        decision = client.decide(**OPUS)
    assert decision.fire is False and decision.fallback is True
    assert decision.reason_code == GATE_UNREACHABLE
    assert "Connection refused" in decision.reason and "not offloading" in decision.reason
    assert isinstance(decision.error, GateError) and decision.error.status is None
    assert "gate_unreachable" in caplog.text


def test_a_timeout_is_gate_unreachable_and_names_the_budget() -> None:
    client, transport, _ = client_for(TimeoutError("timed out"), timeout=0.25)
    decision = client.decide(**OPUS)
    assert decision.reason_code == GATE_UNREACHABLE and "0.25s timeout" in decision.reason
    assert transport.sent[0].timeout == 0.25
    assert len(transport.sent) == 1


def test_any_exception_from_the_transport_still_fails_safe() -> None:
    client, _, _ = client_for(RuntimeError("a bug in a custom transport"))
    assert client.decide(**OPUS).reason_code == GATE_UNREACHABLE


@pytest.mark.parametrize(
    ("answer", "reason_code"),
    [
        (error(500, "internal", "boom"), GATE_UNAVAILABLE),
        (Response(502, b"<html>bad gateway</html>"), GATE_UNAVAILABLE),
        (error(401, "unauthorized", "the gate key is not valid"), GATE_UNAUTHORIZED),
        (error(400, "invalid_request", "horizon must be an integer ≥ 0", [{"path": "horizon", "message": "must be an integer ≥ 0"}]), GATE_INVALID_REQUEST),
        (error(413, "payload_too_large", "too big"), GATE_INVALID_REQUEST),
        (Response(200, b"not json"), GATE_BAD_ANSWER),
        (ok({"decisions": []}), GATE_BAD_ANSWER),
    ],
)
def test_every_failure_has_its_own_reason_code_and_never_fires(answer: Response, reason_code: str) -> None:
    client, transport, _ = client_for(answer)
    decision = client.decide(**OPUS)
    assert (decision.fire, decision.reason_code, decision.fallback) == (False, reason_code, True)
    assert len(transport.sent) == 1  # none of these is retried


def test_a_refused_request_carries_the_gates_issues() -> None:
    client, _, _ = client_for(error(400, "invalid_request", "horizon must be an integer ≥ 0", [{"path": "horizon", "message": "must be an integer ≥ 0"}]))
    decision = client.decide(model_name="gpt-5", output_tokens=1, horizon=1.5)
    assert decision.issues == [{"path": "horizon", "message": "must be an integer ≥ 0"}]
    assert decision.error is not None and decision.error.code == "invalid_request" and decision.error.status == 400


def test_a_503_is_retried_after_its_retry_after() -> None:
    client, transport, clock = client_for(error(503, "unavailable", "KV busy", Retry_After="1"), ok(EXAMPLE_A_ANSWER), timeout=5)
    decision = client.decide(**OPUS)
    assert decision.fire is True and not decision.fallback
    assert clock.slept == [1.0] and len(transport.sent) == 2


def test_a_429_is_retried_when_its_retry_after_fits_the_timeout() -> None:
    client, transport, clock = client_for(error(429, "rate_limited", "slow down", Retry_After="0"), ok(EXAMPLE_A_ANSWER))
    assert client.decide(**OPUS).fire is True
    assert clock.slept == [0.0] and len(transport.sent) == 2


def test_a_retry_after_past_the_timeout_answers_now_instead_of_waiting() -> None:
    client, transport, clock = client_for(error(429, "rate_limited", "slow down", Retry_After="60"), ok(EXAMPLE_A_ANSWER), timeout=2)
    decision = client.decide(**OPUS)
    assert decision.reason_code == GATE_RATE_LIMITED and decision.error is not None and decision.error.retry_after == 60
    assert clock.slept == [] and len(transport.sent) == 1


def test_retries_are_bounded_by_max_retries() -> None:
    client, transport, clock = client_for(error(503, "unavailable", "busy", Retry_After="0"), max_retries=2)
    assert client.decide(**OPUS).reason_code == GATE_UNAVAILABLE
    assert len(transport.sent) == 3 and clock.slept == [0.0, 0.0]


def test_without_retry_after_the_backoff_grows_and_stays_bounded() -> None:
    client, transport, clock = client_for(error(503, "unavailable", "busy"), max_retries=3, timeout=10)
    client.decide(**OPUS)
    assert len(transport.sent) == 4
    assert [0.05 <= clock.slept[0] <= 0.1, 0.1 <= clock.slept[1] <= 0.2, 0.2 <= clock.slept[2] <= 0.4] == [True] * 3


def test_each_attempt_gets_only_the_time_left_and_none_starts_past_the_deadline() -> None:
    client, transport, _ = client_for(error(503, "unavailable", "busy", Retry_After="0"), timeout=1.0, latency=0.6, max_retries=5)
    decision = client.decide(**OPUS)
    assert decision.reason_code == GATE_UNAVAILABLE
    assert [round(s.timeout, 3) for s in transport.sent] == [1.0, 0.4]


def test_raise_on_error_raises_the_gate_error_instead() -> None:
    client, _, _ = client_for(ConnectionRefusedError(111, "Connection refused"), raise_on_error=True)
    with pytest.raises(GateError) as caught:
        client.decide(**OPUS)
    assert caught.value.reason_code == GATE_UNREACHABLE
    lenient, _, _ = client_for(error(500, "internal", "boom"))
    with pytest.raises(GateError, match="boom"):
        lenient.decide(**OPUS, raise_on_error=True)
    strict, _, _ = client_for(error(500, "internal", "boom"), raise_on_error=True)
    assert strict.decide(**OPUS, raise_on_error=False).reason_code == GATE_UNAVAILABLE


def test_decide_batch_returns_one_decision_per_item_in_order() -> None:
    refused = {"error": {"code": "invalid_request", "message": "items.1.output_tokens must not be negative",
                         "issues": [{"path": "items.1.output_tokens", "message": "must not be negative"}]}}
    client, transport, _ = client_for(ok({"decisions": [EXAMPLE_A_ANSWER, refused]}))
    decisions = client.decide_batch([OPUS, GateRequest(model_name="gpt-5", output_tokens=-1)])
    assert [d.fire for d in decisions] == [True, False]
    assert decisions[1].reason_code == GATE_INVALID_REQUEST and decisions[1].issues[0]["path"] == "items.1.output_tokens"
    assert transport.sent[0].path == "/v1/gate/batch"
    assert transport.sent[0].body == {"items": [OPUS, {"model_name": "gpt-5", "output_tokens": -1}]}


def test_decide_batch_sends_long_lists_100_items_a_call() -> None:
    def answer(sent: Sent) -> Response:
        return ok({"decisions": [dict(EXAMPLE_A_ANSWER, decision_id=item["session_id"]) for item in sent.body["items"]]})

    client, transport, _ = client_for(answer)
    decisions = client.decide_batch([dict(OPUS, session_id=f"s{i}") for i in range(250)])
    assert [len(s.body["items"]) for s in transport.sent] == [100, 100, 50]
    assert [d.decision_id for d in decisions] == [f"s{i}" for i in range(250)]
    assert client.decide_batch([]) == [] and len(transport.sent) == 3


def test_a_failed_batch_gives_a_fallback_decision_for_every_item() -> None:
    client, _, _ = client_for(TimeoutError())
    decisions = client.decide_batch([OPUS, OPUS, OPUS])
    assert [(d.fire, d.reason_code) for d in decisions] == [(False, GATE_UNREACHABLE)] * 3
    assert decisions[0] is not decisions[1]


def test_plan_posts_the_segments_and_falls_back_to_stubbing_nothing() -> None:
    answer = {"stub": ["c1", "c2", "c3"], "net_saving_usd": 0.277302, "reason": "r", "reason_code": "plan_positive", "candidates": []}
    client, transport, _ = client_for(ok(answer), error(503, "unavailable", "busy", Retry_After="30"))
    segments = [Segment(8_000), Segment(42_000, id="c1", recall_probability=0.2)]
    plan = client.plan(model_name="claude-opus-4-6", horizon=4, segments=segments)
    assert plan.stub == ["c1", "c2", "c3"] and transport.sent[0].path == "/v1/plan"
    assert transport.sent[0].body["segments"] == [{"tokens": 8_000}, {"tokens": 42_000, "id": "c1", "recall_probability": 0.2}]
    fallback = client.plan(model_name="claude-opus-4-6", segments=segments)
    assert (fallback.stub, fallback.reason_code, fallback.fallback) == ([], GATE_UNAVAILABLE, True)


def test_report_outcomes_posts_the_items_and_sums_the_tallies_of_every_chunk() -> None:
    def answer(sent: Sent) -> Response:
        items = sent.body["items"]
        return ok({"results": [{"status": "accepted"} for _ in items], "accepted": len(items), "unknown_decision": 0, "conflict": 0, "invalid": 0})

    client, transport, _ = client_for(answer)
    outcomes = [Outcome("dec_0_" + "0" * 32, turns_after=5, recalled=True)] + [
        {"decision_id": f"dec_1_{i:032x}", "turns_after": 0, "recalled": False} for i in range(120)
    ]
    report = client.report_outcomes(outcomes)
    assert report.ok and report.accepted == 121 and len(report.results) == 121
    assert [s.path for s in transport.sent] == ["/v1/outcomes", "/v1/outcomes"]
    assert transport.sent[0].body["items"][0] == {"decision_id": "dec_0_" + "0" * 32, "turns_after": 5, "recalled": True}


def test_a_report_the_gate_does_not_take_says_so_without_raising() -> None:
    client, transport, _ = client_for(error(500, "internal", "ledger down"))
    report = client.report_outcomes([Outcome(f"d-{i}", 1, False) for i in range(150)])
    assert not report.ok and report.results == [] and report.error is not None
    assert report.error.reason_code == GATE_UNAVAILABLE
    assert len(transport.sent) == 1  # the second chunk is not sent after the first failed


def test_report_session_posts_one_sessions_bill() -> None:
    client, transport, _ = client_for(ok({"results": [{"status": "accepted"}], "accepted": 1, "unknown_decision": 0, "conflict": 0, "invalid": 0}))
    usage = {"input_tokens": 10_000, "output_tokens": 900, "cache_read_input_tokens": 120_000, "cache_creation_input_tokens": 8_000}
    report = client.report_session(session_id="s-1", model_name="claude-opus-4-6", turns=12, usage=usage)
    assert report.ok and report.accepted == 1 and report.results[0].status == "accepted"
    assert transport.sent[0].path == "/v1/sessions"
    assert transport.sent[0].body == {"items": [{"session_id": "s-1", "model_name": "claude-opus-4-6", "turns": 12, "usage": usage}]}


def test_the_client_closes_its_connections_on_exit() -> None:
    client, transport, _ = client_for(ok(EXAMPLE_A_ANSWER))
    with client:
        client.decide(**OPUS)
    assert transport.closed


@pytest.mark.parametrize("bad", [{"timeout": 0}, {"max_retries": -1}])
def test_nonsense_options_are_refused_at_construction(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        GateClient("http://gate.test", transport=FakeTransport([]), **bad)


def test_a_base_url_that_is_not_http_is_refused() -> None:
    with pytest.raises(ValueError, match="http"):
        GateClient("ftp://gate.test")
