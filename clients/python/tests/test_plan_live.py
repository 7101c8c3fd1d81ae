"""POST /v1/plan through the client, against the local gate (see live.py)."""

from __future__ import annotations

import pytest
from live import NEEDS_GATE

from offload_gate import GATE_INVALID_REQUEST, GateClient, PlanRequest, Segment

pytestmark = NEEDS_GATE

# Worked example P1 of docs/design/plan.md §4.
P1 = PlanRequest(
    model_name="claude-opus-4-6",
    horizon=4,
    cache_hit_rate=0.9,
    segments=[
        Segment(8_000),
        Segment(42_000, id="c1", recall_probability=0.2),
        Segment(1_500),
        Segment(15_000, id="c2", recall_probability=0.25),
        Segment(3_000),
        Segment(30_000, id="c3", recall_probability=0.1),
        Segment(2_000),
    ],
)


def test_worked_example_p1_stubs_all_three_though_two_lose_money_alone(live_gate: GateClient) -> None:
    plan = live_gate.plan(P1, raise_on_error=True)
    assert plan.stub == ["c1", "c2", "c3"] and plan.reason_code == "plan_positive"
    assert plan.net_saving_usd == pytest.approx(0.277302, abs=5e-7)  # recalls appended, the default placement
    assert [(c.id, c.stubbed) for c in plan.candidates] == [("c1", True), ("c2", True), ("c3", True)]
    alone = [c.alone_net_saving_usd for c in plan.candidates]
    assert alone[0] is not None and alone[0] < 0 and alone[1] is not None and alone[1] < 0
    assert alone[2] is not None and alone[2] > 0
    assert (plan.rewrite_from_tokens, plan.fallback) == (8_000, False)


def test_a_refused_plan_stubs_nothing_and_names_the_segment(live_gate: GateClient) -> None:
    plan = live_gate.plan(model_name="claude-opus-4-6", segments=[{"id": "a", "tokens": 20_000}, {"id": "a", "tokens": 20_000}])
    assert (plan.stub, plan.reason_code, plan.fallback) == ([], GATE_INVALID_REQUEST, True)
    assert plan.error is not None and plan.error.issues[0]["path"] == "segments.1.id"
