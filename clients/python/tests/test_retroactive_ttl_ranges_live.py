"""Retroactive offload, the 1-hour cache and ranges: inputs and answers through the client, against the local gate."""

from __future__ import annotations

import pytest
from live import NEEDS_GATE

from offload_gate import GateClient

pytestmark = NEEDS_GATE



def test_r1_stubbing_a_cached_output_that_rewrites_its_suffix_does_not_fire(live_gate: GateClient) -> None:
    decision = live_gate.decide(
        model_name="claude-opus-4-6", output_tokens=20_000, horizon=4, recall_probability=0.3, pricing_mode="cache_aware",
        cache_hit_rate=0.9, context_tokens=60_000, offload_at="retroactive", suffix_tokens=30_000, raise_on_error=True,
    )
    assert (decision.fire, decision.fallback) == (False, False)
    assert decision.net_saving_usd == pytest.approx(-0.10767, abs=5e-6)  # recall appended, the default placement
    assert decision.suffix_rewrite_cost_usd == pytest.approx(0.15525, abs=5e-6)
    assert decision.inputs is not None and decision.inputs.offload_at == "retroactive"


def test_b1_a_range_whose_worst_corner_loses_holds_the_fire(live_gate: GateClient) -> None:
    decision = live_gate.decide(
        model_name="claude-opus-4-6", output_tokens=12_000, horizon=2, recall_probability=0.5, pricing_mode="cache_aware",
        context_tokens=120_000, cache_hit_rate=0.9, cache_hit_rate_range=(0.8, 1.0), raise_on_error=True,
    )
    assert (decision.fire, decision.reason_code) == (False, "worst_case_not_positive")
    assert decision.worst_case is not None and decision.worst_case.cache_hit_rate == 0.8
    assert decision.worst_case.net_saving_usd == pytest.approx(-0.01828, abs=5e-6)
