"""OffloadSession against the local gate: a scripted agent loop (no framework)
in which the session does all the bookkeeping, checked in GET /v1/savings."""

from __future__ import annotations

import json
import os
import re
import socket
import urllib.request
import uuid
from typing import Any, Dict, List

import pytest
from live import KEY, NEEDS_GATE, URL

from offload_gate import GateClient, OffloadSession

pytestmark = NEEDS_GATE
MODEL = "claude-opus-4-6"
RATES = {"input_tokens": 5, "output_tokens": 25, "cache_read_input_tokens": 0.5, "cache_creation_input_tokens": 6.25}
STUB_ID = re.compile(r'\{"id":"([^"]+)"\}')


def usage(input_tokens: int, read: int, write: int = 0, output: int = 40) -> Dict[str, int]:
    return {"input_tokens": input_tokens, "output_tokens": output, "cache_read_input_tokens": read, "cache_creation_input_tokens": write}


def big(seed: int, chars: int = 160_000) -> str:
    return (f"report {seed}\n" + "lorem ipsum dolor sit amet " * (chars // 27 + 1))[:chars]


def agent_loop(session: OffloadSession, tool: str, outputs: List[str], usages: List[Dict[str, int]]) -> List[List[str]]:
    """A harness as a user writes it: the history holds what offload() returns, the
    recall tool answers with recall(), and every model call is observed. The "model"
    calls the tool once per output, the recall tool after a stub, then stops."""
    history: List[str] = ["user: summarize"]
    prompts: List[List[str]] = []
    pending = list(outputs)
    for step in range(3 * len(outputs) + 1):
        prompts.append(list(history))
        session.observe(usages[min(step, len(usages) - 1)])
        stub = STUB_ID.search(history[-1]) if history[-1].startswith(f"{tool}:") else None
        call_id = f"call_{step + 1}"
        if stub:
            history.append(f"recall_tool_output: {session.recall(stub.group(1))}")
        elif pending:
            history.append(f"{tool}: {session.offload(call_id, tool, pending.pop(0))}")
        else:
            break
    return prompts


def savings(tool: str) -> Dict[str, Any]:
    request = urllib.request.Request(f"{URL}/v1/savings?tool_name={tool}", headers={"authorization": f"Bearer {KEY}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def test_a_stubbed_and_recalled_output_shows_in_the_savings_report_with_the_bill(live_gate: GateClient) -> None:
    tool = unique("py_fetch")
    session = OffloadSession(live_gate, MODEL)
    original = big(1)
    prompts = agent_loop(session, tool, [original], [usage(1_200, 0, 1_000), usage(300, 2_200, 60), usage(41_000, 0)])
    summary = session.end()
    assert prompts[1][-1].startswith(f"{tool}: [offloaded: the output of {tool} call call_1 (160,000 chars)")
    assert prompts[2][-1] == f"recall_tool_output: {original}"
    assert (summary.decisions, summary.stubbed, summary.recalled, summary.turns) == (1, 1, 1, 3)
    assert summary.outcomes is not None and summary.outcomes.accepted == 1
    assert summary.session is not None and summary.session.accepted == 1
    report = savings(tool)
    assert (report["decisions"], report["fired"], report["outcomes"], report["recall"]["realized"]) == (1, 1, 1, 1)
    assert report["horizon"]["realized_mean"] == 2 and report["cache_hit_rate"]["realized_mean"] == 0.5
    bill = sum(summary.usage[key] * rate for key, rate in RATES.items()) / 1e6
    assert summary.usage == usage(42_500, 2_200, 1_060, 120)
    row = next(t for t in report["holdout"]["tools"] if t["tool_name"] == tool)
    assert (row["sessions"], row["treated"]) == (1, 1)
    assert row["information"]["treated_mean_cost_usd"] == pytest.approx(bill, abs=1e-9)
    assert session.end() is summary, "end() reports once"


def test_every_later_call_replays_the_decision_byte_for_byte(live_gate: GateClient) -> None:
    session = OffloadSession(live_gate, MODEL)
    first = session.offload("c1", "web_fetch", big(2))
    again = [session.offload("c1", "web_fetch", big(2)) for _ in range(3)]
    assert first.startswith("[offloaded:") and again == [first] * 3
    assert session.status("c1") == "stubbed" and session.end().decisions == 1


def test_with_the_gate_down_the_loop_keeps_the_originals_and_nothing_raises() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    session = OffloadSession(GateClient(f"http://127.0.0.1:{port}", timeout=0.5), MODEL)
    original = big(3)
    prompts = agent_loop(session, "fetch", [original], [usage(1_000, 0)])
    summary = session.end()
    assert prompts[1][-1] == f"fetch: {original}"
    assert (summary.decisions, summary.stubbed, summary.outcomes) == (0, 0, None)
    assert summary.session is not None and not summary.session.ok


@pytest.mark.skipif(not os.environ.get("OFFLOAD_GATE_TEST_ADMIN_TOKEN"), reason="no admin token for the holdout")
def test_a_held_out_session_never_holds_a_stub(live_gate: GateClient) -> None:
    tool = unique("py_held")

    def admin(method: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"authorization": f"Bearer {os.environ['OFFLOAD_GATE_TEST_ADMIN_TOKEN']}", "content-type": "application/json"}
        with urllib.request.urlopen(urllib.request.Request(f"{URL}/v1/admin/config", data, headers, method=method), timeout=10) as answer:
            return json.loads(answer.read())

    before = admin("GET")["stored"] or {}
    admin("PUT", {**before, "holdout_fraction": 0.5})
    try:
        held = next(
            s for s in (f"py-held-{tool}-{i}" for i in range(64))
            if live_gate.decide(model_name=MODEL, output_tokens=40_000, pricing_mode="cache_aware", session_id=s, tool_name=tool).reason_code == "holdout"
        )
        session = OffloadSession(live_gate, MODEL, session_id=held)
        prompts = agent_loop(session, tool, [big(4), big(5), big(6)], [usage(1_000, 500)])
        summary = session.end()
    finally:
        admin("PUT", before)
    assert not any("[offloaded:" in line for prompt in prompts for line in prompt)
    assert (summary.decisions, summary.stubbed) == (3, 0)
    assert summary.outcomes is not None and summary.outcomes.accepted == 3


def test_one_hour_writes_are_billed_at_the_one_hour_rate_as_priced_by_hand(live_gate: GateClient) -> None:
    tool = unique("py_ttl")
    session = OffloadSession(live_gate, MODEL)
    split = lambda i, r, w5, w1, o=40: {**usage(i, r, w5 + w1, o), "cache_creation": {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1}}  # noqa: E731
    agent_loop(session, tool, [big(7)], [split(1_200, 0, 1_000, 4_000), split(300, 5_200, 60, 0), split(41_000, 0, 0, 0)])
    summary = session.end()
    assert summary.session is not None and summary.session.accepted == 1 and summary.usage_issues == []
    # By hand, at the Opus row of pricing.seed.json: 1-hour writes at $10 a million, not the 5-minute $6.25.
    bill = (42_500 * 5 + 120 * 25 + 5_200 * 0.5 + 1_060 * 6.25 + 4_000 * 10) / 1e6
    row = next(t for t in savings(tool)["holdout"]["tools"] if t["tool_name"] == tool)
    assert row["information"]["treated_mean_cost_usd"] == pytest.approx(bill, abs=1e-9)
