from __future__ import annotations

import dataclasses

import pytest
from fakes import EXAMPLE_A_ANSWER, OffloadGateInputs

from offload_gate import (
    GATE_INVALID_REQUEST,
    GateAnswerError,
    GateDecision,
    GateRequest,
    Outcome,
    Plan,
    PlanRequest,
    Report,
    ResolvedInputs,
    Segment,
    SessionReport,
    StalePricing,
)
from offload_gate.models import as_request


def test_a_decision_exposes_every_answer_field_as_an_attribute() -> None:
    decision = GateDecision.from_json(EXAMPLE_A_ANSWER)
    assert decision.fire is True
    assert decision.net_saving_usd == 0.38925000000000004
    assert decision.reprefill_saving_usd == 0.4
    assert decision.stub_carry_cost_usd == 0.004
    assert decision.expected_recall_hop_cost_usd == 0.00675
    assert decision.reason.startswith("net=$0.3893 ")
    assert decision.reason_code == "net_positive"
    assert decision.pricing_mode == "seed"
    assert decision.break_even_horizon == 1
    assert decision.break_even_output_tokens == 10_000
    assert decision.priced_as == {"model": "claude-opus-4-6", "input": 5, "output": 25}
    assert decision.stale_pricing is None
    assert isinstance(decision.inputs, ResolvedInputs)
    assert decision.inputs.horizon == 4 and decision.inputs.recall_probability == 0.3
    assert decision.extra == {} and decision.fallback is False and decision.error is None


def test_fields_the_server_adds_later_land_in_extra_and_missing_ones_take_defaults() -> None:
    answer = {"fire": False, "reason_code": "holdout", "would_fire": True, "decision_id": "d-1", "brand_new": {"x": 1}}
    decision = GateDecision.from_json(answer)
    assert decision.would_fire is True and decision.decision_id == "d-1"
    assert decision.extra == {"brand_new": {"x": 1}}
    assert decision.net_saving_usd == 0.0 and decision.inputs is None and decision.worst_case is None


def test_nested_answers_keep_their_own_unknown_fields() -> None:
    answer = dict(EXAMPLE_A_ANSWER, stale_pricing={"age_seconds": 4000, "detail": "KV down", "since": "x"})
    answer["inputs"] = dict(EXAMPLE_A_ANSWER["inputs"], offload_at="retroactive", horizon_range=[2, 6], future_input=1)
    answer["worst_case"] = {"net_saving_usd": -0.01, "horizon": 2, "recall_probability": 0.5, "cache_hit_rate": 0.8}
    decision = GateDecision.from_json(answer)
    assert decision.stale_pricing == StalePricing(age_seconds=4000, detail="KV down", extra={"since": "x"})
    assert decision.inputs is not None and decision.inputs.extra == {"future_input": 1}
    assert (decision.inputs.offload_at, decision.inputs.horizon_range) == ("retroactive", [2, 6])
    assert decision.worst_case is not None and decision.worst_case.cache_hit_rate == 0.8


@pytest.mark.parametrize("answer", [{"reason_code": "net_positive"}, {"fire": "yes", "reason_code": "x"}, {"fire": True}, [1, 2]])
def test_an_answer_without_a_boolean_fire_and_a_reason_code_is_refused(answer: object) -> None:
    with pytest.raises(GateAnswerError):
        GateDecision.from_json(answer)


def test_a_batch_item_error_becomes_a_no_fire_decision_with_its_issues() -> None:
    entry = {"error": {"code": "invalid_request", "message": "items.1.horizon must be an integer ≥ 0",
                       "issues": [{"path": "items.1.horizon", "message": "must be an integer ≥ 0"}]}}
    decision = GateDecision.from_json(entry)
    assert decision.fire is False and decision.fallback is True
    assert decision.reason_code == GATE_INVALID_REQUEST
    assert decision.issues == [{"path": "items.1.horizon", "message": "must be an integer ≥ 0"}]
    assert "items.1.horizon" in decision.reason


def test_a_request_sends_only_the_fields_that_are_set_and_ranges_as_lists() -> None:
    request = GateRequest(model_name="gpt-5", output_chars=80_000, horizon_range=(2, 6), extra={"future_field": 1})
    assert request.to_json() == {"model_name": "gpt-5", "output_chars": 80_000, "horizon_range": [2, 6], "future_field": 1}


def test_ranges_given_as_lists_or_tuples_are_sent_as_lists() -> None:
    request = GateRequest(model_name="gpt-5", output_tokens=1, horizon_range=[2, 6], recall_probability_range=(0.1, 0.4))  # type: ignore[arg-type]
    assert request.to_json() == {"model_name": "gpt-5", "output_tokens": 1, "horizon_range": [2, 6], "recall_probability_range": [0.1, 0.4]}


def test_the_reference_dataclass_converts_to_a_request_field_for_field() -> None:
    inputs = OffloadGateInputs(output_tokens=20_000, horizon=4, recall_probability=0.3, model_name="claude-opus-4-6")
    request = as_request(GateRequest, inputs, tool_name="web_fetch")
    assert request.to_json() == {**dataclasses.asdict(inputs), "tool_name": "web_fetch"}


def test_keys_a_request_does_not_know_are_kept_so_the_gate_can_name_them() -> None:
    request = as_request(GateRequest, {"model_name": "gpt-5", "output_tokens": 1, "horizn": 3})
    assert request.extra == {"horizn": 3} and request.to_json()["horizn"] == 3


def test_a_plan_request_serialises_its_segments_in_order() -> None:
    request = PlanRequest(
        model_name="claude-opus-4-6",
        horizon=4,
        segments=[Segment(8_000), Segment(42_000, id="c1", recall_probability=0.2), {"tokens": 1_500}],
    )
    assert request.to_json() == {
        "model_name": "claude-opus-4-6",
        "horizon": 4,
        "segments": [{"tokens": 8_000}, {"tokens": 42_000, "id": "c1", "recall_probability": 0.2}, {"tokens": 1_500}],
    }


def test_a_plan_answer_parses_its_candidates_and_keeps_new_fields() -> None:
    plan = Plan.from_json({
        "stub": ["c1", "c3"], "net_saving_usd": 0.277302, "keep_cost_usd": 1.0, "plan_cost_usd": 0.72,
        "rewrite_from_tokens": 8_000, "rewritten_tokens": 60_000, "reason": "r", "reason_code": "plan_positive",
        "candidates": [{"id": "c1", "stubbed": True, "alone_net_saving_usd": -0.1056, "new": 1}],
        "decision_id": "p-1", "whatever": True,
    })
    assert plan.stub == ["c1", "c3"] and plan.reason_code == "plan_positive"
    assert plan.candidates[0].alone_net_saving_usd == -0.1056 and plan.candidates[0].extra == {"new": 1}
    assert plan.extra == {"whatever": True} and plan.fallback is False
    with pytest.raises(GateAnswerError):
        Plan.from_json({"stub": "c1", "reason_code": "plan_positive"})


def test_report_bodies_carry_the_ledger_fields() -> None:
    assert Outcome("d-1", turns_after=5, recalled=False, cached_turns=4).to_json() == {
        "decision_id": "d-1", "turns_after": 5, "recalled": False, "cached_turns": 4,
    }
    usage = {"input_tokens": 1_000, "output_tokens": 200, "cache_read_input_tokens": 50_000}
    assert SessionReport("s-1", "claude-opus-4-6", turns=12, usage=usage).to_json() == {
        "session_id": "s-1", "model_name": "claude-opus-4-6", "turns": 12, "usage": usage,
    }


def test_a_report_answer_keeps_each_items_result_in_order_and_the_tally() -> None:
    report = Report.from_json({
        "results": [
            {"status": "accepted", "repeated": True},
            {"status": "invalid", "message": "turns_after must be an integer ≥ 0", "issues": [{"path": "items.1.turns_after", "message": "must be an integer ≥ 0"}]},
        ],
        "accepted": 1, "unknown_decision": 0, "conflict": 0, "invalid": 1,
    })
    assert [(r.status, r.repeated) for r in report.results] == [("accepted", True), ("invalid", None)]
    assert report.results[1].issues[0]["path"] == "items.1.turns_after"
    assert (report.accepted, report.invalid, report.ok) == (1, 1, True)
    with pytest.raises(GateAnswerError):
        Report.from_json({"results": "accepted"})


def test_fields_past_the_required_ones_are_keyword_only_so_the_documents_order_never_moves_an_argument() -> None:
    from offload_gate.models import GateRequest, Outcome, Segment

    assert GateRequest("claude-opus-4-6", output_tokens=20_000).output_tokens == 20_000
    assert Outcome("dec_1", 5, False, cached_turns=4).to_json() == {"decision_id": "dec_1", "turns_after": 5, "recalled": False, "cached_turns": 4}
    for positional in (lambda: GateRequest("claude-opus-4-6", 20_000), lambda: Segment(42_000, "call_1")):
        with pytest.raises(TypeError):
            positional()


def test_a_request_tells_its_session_call_index_subagent_and_agent() -> None:
    request = GateRequest(model_name="claude-opus-4-6", output_tokens=9_000, call_index=12, subagent=True, agent="claude-code")
    assert request.to_json() == {
        "model_name": "claude-opus-4-6",
        "output_tokens": 9_000,
        "call_index": 12,
        "subagent": True,
        "agent": "claude-code",
    }
    # Left out, they are not sent: the gate prices the horizon it was given, as before.
    assert "call_index" not in GateRequest(model_name="gpt-5", output_tokens=1).to_json()
