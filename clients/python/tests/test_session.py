"""OffloadSession's bookkeeping, on a scripted transport: what it asks the gate,
what it replays, what it reports, and that nothing raises into the loop."""

from __future__ import annotations

import math
from typing import Any, Dict, List

from fakes import EXAMPLE_A_ANSWER, FakeTransport, Sent, ok

from offload_gate import GateClient, OffloadSession, default_stub


def decision(fire: bool = True, n: int = 0) -> Dict[str, Any]:
    return {**EXAMPLE_A_ANSWER, "fire": fire, "reason_code": "net_positive" if fire else "net_not_positive", "decision_id": f"dec_0_{n:032x}"}


class Gate:
    """A scripted gate: fires on every output, accepts every report (after `unknown_first` unknowns)."""

    def __init__(self, fire: bool = True, unknown_first: int = 0) -> None:
        self.fire, self.unknown_first, self.decided = fire, unknown_first, 0
        self.transport = FakeTransport([self.answer])

    def answer(self, sent: Sent) -> Any:
        if sent.path == "/v1/gate":
            self.decided += 1
            return ok(decision(self.fire, self.decided))
        items = sent.body["items"]
        status = "unknown_decision" if self.unknown_first > 0 else "accepted"
        self.unknown_first -= 1
        results = [{"status": status, "repeated": False}] * len(items)
        return ok({"results": results, "accepted": len(items) if status == "accepted" else 0, "unknown_decision": 0 if status == "accepted" else len(items), "conflict": 0, "invalid": 0})

    def client(self) -> GateClient:
        return GateClient("http://gate.test", transport=self.transport)

    def sent(self, path: str) -> List[Sent]:
        return [s for s in self.transport.sent if s.path == path]


def test_the_gate_is_asked_once_per_output_with_the_stub_size_context_session_and_tool() -> None:
    gate = Gate()
    session = OffloadSession(gate.client(), "claude-opus-4-6", session_id="conv-1")
    session.observe({"input_tokens": 100, "output_tokens": 50, "cache_read_input_tokens": 2_000, "cache_creation_input_tokens": 300})
    texts = [session.offload("c1", "web fetch", "x" * 50_000) for _ in range(3)]
    stub = default_stub("c1", "web fetch", 50_000, "recall_tool_output")
    assert texts == [stub] * 3 and len(gate.sent("/v1/gate")) == 1
    body = gate.sent("/v1/gate")[0].body
    assert body == {
        "model_name": "claude-opus-4-6", "output_tokens": 17_500, "recall_input_tokens": 17_500, "pricing_mode": "cache_aware",
        "context_tokens": 2_450, "stub_tokens": math.ceil(len(stub) * 0.35), "session_id": "conv-1", "tool_name": "web_fetch",
    }


def test_small_outputs_and_the_recall_tools_own_results_are_never_asked_about() -> None:
    gate = Gate()
    session = OffloadSession(gate.client(), "claude-opus-4-6")
    assert session.offload("c1", "grep", "y" * 1_999) == "y" * 1_999
    assert session.offload("c2", "recall_tool_output", "z" * 90_000) == "z" * 90_000
    assert gate.sent("/v1/gate") == [] and session.status("c1") is None


def test_a_store_that_fails_keeps_the_original_and_a_recall_of_an_unknown_id_answers_text() -> None:
    class Broken(dict):  # type: ignore[type-arg]
        def __setitem__(self, key: str, value: str) -> None:
            raise OSError("disk full")

    session = OffloadSession(Gate().client(), "claude-opus-4-6", store=Broken())
    assert session.offload("c1", "web_fetch", "x" * 50_000) == "x" * 50_000
    assert session.status("c1") == "kept"
    assert session.recall("nope") == 'no offloaded output has id "nope"'


def test_end_reports_turns_cached_turns_and_recalls_per_decision_in_batches_of_100_then_the_bill() -> None:
    gate = Gate()
    session = OffloadSession(gate.client(), "claude-opus-4-6", session_id="conv-2")
    session.observe({"input_tokens": 10, "output_tokens": 1})
    for i in range(150):
        session.offload(f"c{i}", "web_fetch", "x" * 50_000)
    assert session.recall("c7") == "x" * 50_000
    session.observe({"input_tokens": 10, "output_tokens": 1, "cache_read_input_tokens": 5})
    session.observe({"input_tokens": 10, "output_tokens": 1})
    summary = session.end()
    calls = gate.sent("/v1/outcomes")
    assert [len(call.body["items"]) for call in calls] == [100, 50]
    items = [item for call in calls for item in call.body["items"]]
    assert {(item["turns_after"], item["cached_turns"]) for item in items} == {(2, 1)}
    assert [item["decision_id"] for item in items if item["recalled"]] == [f"dec_0_{8:032x}"]
    assert summary.outcomes is not None and summary.outcomes.accepted == 150
    assert gate.sent("/v1/sessions")[0].body == {"items": [{"session_id": "conv-2", "model_name": "claude-opus-4-6", "turns": 3,
        "usage": {"input_tokens": 30, "output_tokens": 3, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 0},
        # The history at the first gate call (11 tokens) times the later calls that missed the cache (the last one).
        "covariate": 11}]}
    assert session.end() is summary and session.offload("late", "web_fetch", "x" * 50_000) == "x" * 50_000


def test_an_outcome_the_ledger_has_not_seen_yet_is_sent_again() -> None:
    gate = Gate(unknown_first=1)
    session = OffloadSession(gate.client(), "claude-opus-4-6")
    session.offload("c1", "web_fetch", "x" * 50_000)
    session.observe({"input_tokens": 10, "output_tokens": 1})
    summary = session.end()
    assert len(gate.sent("/v1/outcomes")) == 2
    assert summary.outcomes is not None and (summary.outcomes.accepted, summary.outcomes.unknown_decision) == (1, 0)


def test_in_seed_mode_the_context_goes_with_the_outcome_not_the_decision() -> None:
    gate = Gate(fire=False)
    session = OffloadSession(gate.client(), "claude-opus-4-6", request={"pricing_mode": "seed", "horizon": 6})
    session.observe({"input_tokens": 700, "output_tokens": 20})
    assert session.offload("c1", "web_fetch", "x" * 50_000) == "x" * 50_000
    body = gate.sent("/v1/gate")[0].body
    assert body["pricing_mode"] == "seed" and body["horizon"] == 6 and "context_tokens" not in body
    session.end()
    assert gate.sent("/v1/outcomes")[0].body["items"] == [{"decision_id": f"dec_0_{1:032x}", "turns_after": 0, "recalled": False, "cached_turns": 0, "context_tokens": 720}]


def test_sizes_start_from_the_shared_constants_and_learn_from_the_prompts_growth():
    import json
    import pathlib

    from offload_gate._tokens import TokenMeter, family_factor

    shared = json.loads((pathlib.Path(__file__).resolve().parents[2] / "constants.json").read_text(encoding="utf-8"))
    assert family_factor("claude-opus-4-6") == shared["tokens_per_char"]["claude"]
    assert family_factor("mystery-model") == shared["default_tokens_per_char"]
    meter = TokenMeter("claude-opus-4-6")
    meter.observe({"input_tokens": 2, "cache_read_input_tokens": 4_000, "cache_creation_input_tokens": 998, "output_tokens": 100})
    meter.added("a", 8_000)
    meter.added("a", 8_000)  # replayed on the next prompt: counted once
    meter.observe({"input_tokens": 2, "cache_read_input_tokens": 5_100, "cache_creation_input_tokens": 4_898, "output_tokens": 80})
    assert meter.factor == (20_000 * 0.35 + 4_900) / 28_000
    shrunk = TokenMeter("claude-opus-4-6")
    shrunk.observe({"input_tokens": 9_000}); shrunk.added("b", 4_000); shrunk.observe({"input_tokens": 3_000})
    assert shrunk.factor == 0.35
