"""Decision ids, outcomes and session bills through the client, against the local gate."""

from __future__ import annotations

import re
import uuid

import pytest
from live import NEEDS_GATE, eventually

from offload_gate import GateClient, Outcome, Report, SessionReport

pytestmark = NEEDS_GATE

DECISION_ID = re.compile(r"^dec_\d+_[0-9a-f]{32}(_[0-9a-f]{8}_[0-9a-f]{16})?$")


def landed(report: Report) -> bool:
    return report.ok and all(result.status != "unknown_decision" for result in report.results[:1])


def test_a_decision_reported_on_is_accepted_once_and_again_as_a_repeat(live_gate: GateClient) -> None:
    session = f"py-{uuid.uuid4().hex[:12]}"
    decision = live_gate.decide(model_name="claude-opus-4-6", output_tokens=20_000, session_id=session, tool_name="web_fetch", raise_on_error=True)
    assert decision.decision_id is not None and DECISION_ID.match(decision.decision_id)
    outcome = Outcome(decision.decision_id, turns_after=5, recalled=False, cached_turns=4)
    first = eventually(lambda: live_gate.report_outcomes([outcome], raise_on_error=True), landed)
    again = live_gate.report_outcomes([outcome], raise_on_error=True)
    assert [result.status for result in first.results] == ["accepted"] and first.accepted == 1
    assert [(result.status, result.repeated) for result in again.results] == [("accepted", True)]


def test_each_outcome_gets_its_own_verdict(live_gate: GateClient) -> None:
    decision = live_gate.decide(model_name="claude-opus-4-6", output_tokens=20_000, raise_on_error=True)
    assert decision.decision_id is not None
    outcomes = [
        Outcome(decision.decision_id, turns_after=3, recalled=False),
        Outcome("dec_0_" + "0" * 32, turns_after=3, recalled=False),
        {"decision_id": decision.decision_id, "turns_after": 2, "recalled": False, "cached_turns": 9},
    ]
    report = eventually(lambda: live_gate.report_outcomes(outcomes), landed)
    assert [result.status for result in report.results] == ["accepted", "unknown_decision", "invalid"]
    assert (report.accepted, report.unknown_decision, report.invalid) == (1, 1, 1)
    assert report.results[2].issues and report.results[2].issues[0]["path"].endswith("cached_turns")


def test_a_sessions_bill_is_accepted(live_gate: GateClient) -> None:
    usage = {"input_tokens": 4_200, "output_tokens": 9_800, "cache_read_input_tokens": 1_650_000, "cache_creation_input_tokens": 210_000}
    report = live_gate.report_session(SessionReport(f"py-{uuid.uuid4().hex[:12]}", "claude-opus-4-6", turns=12, usage=usage), raise_on_error=True)
    assert [result.status for result in report.results] == ["accepted"] and report.accepted == 1


def test_a_decision_id_the_gate_never_gave_is_refused_by_name(live_gate: GateClient) -> None:
    report = live_gate.report_outcomes([Outcome("not-a-decision", turns_after=1, recalled=False)])
    assert [result.status for result in report.results] == ["invalid"]
    assert report.results[0].issues[0]["path"].endswith("decision_id")
    with pytest.raises(TypeError):
        Outcome("d")  # type: ignore[call-arg]  # turns_after and recalled are required
