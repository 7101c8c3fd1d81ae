"""The client against a running gate (see live.py)."""

from __future__ import annotations

import asyncio
import socket
from typing import Iterator

import pytest
from fakes import OffloadGateInputs
from live import KEY, NEEDS_GATE, URL

from offload_gate import (
    GATE_INVALID_REQUEST,
    GATE_UNAUTHORIZED,
    GATE_UNREACHABLE,
    AsyncGateClient,
    GateClient,
    GateRequest,
)

pytestmark = NEEDS_GATE

EXAMPLE_A = {"model_name": "claude-opus-4-6", "output_tokens": 20_000, "horizon": 4, "recall_probability": 0.3}
# The reference gate's own reason for worked example A.
REASON_A = "net=$0.3893 (saving=$0.4000 − stub=$0.0040 − recall=$0.0067); H=4 p_recall=0.30 model=claude-opus-4-6"


@pytest.fixture()
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[GateClient]:
    """A client configured the way an agent is: the URL and key from the environment."""
    monkeypatch.setenv("OFFLOAD_GATE_URL", URL or "")
    if KEY:
        monkeypatch.setenv("OFFLOAD_GATE_API_KEY", KEY)
    with GateClient(timeout=10) as client:
        yield client


def test_worked_example_a_comes_back_exactly_as_the_reference_computes_it(gate: GateClient) -> None:
    decision = gate.decide(**EXAMPLE_A, raise_on_error=True)
    assert decision.fire is True and decision.fallback is False
    assert decision.net_saving_usd == 0.38925000000000004
    assert (decision.reprefill_saving_usd, decision.stub_carry_cost_usd, decision.expected_recall_hop_cost_usd) == (0.4, 0.004, 0.00675)
    assert decision.reason == REASON_A and decision.reason_code == "net_positive"
    assert decision.priced_as is not None and decision.priced_as["model"] == "claude-opus-4-6"
    assert decision.inputs is not None and decision.inputs.stub_tokens == 200


def test_the_reference_dataclass_is_decided_as_it_is(gate: GateClient) -> None:
    inputs = OffloadGateInputs(output_tokens=5_000, horizon=4, recall_probability=0.3, model_name="claude-opus-4-6")
    decision = gate.decide(inputs, raise_on_error=True)
    assert (decision.fire, decision.reason_code) == (False, "below_threshold")
    assert decision.reason == "below large_offload_threshold (5000 < 10000 tokens)"


def test_an_unpriced_model_is_the_gates_own_no_fire_not_a_fallback(gate: GateClient) -> None:
    decision = gate.decide(model_name="no-such-model-anywhere", output_tokens=50_000)
    assert (decision.fire, decision.reason_code, decision.fallback) == (False, "unpriced", False)


def test_a_wrong_field_fails_safe_with_the_gates_issue(gate: GateClient) -> None:
    decision = gate.decide(model_name="claude-opus-4-6", output_tokens=20_000, horizon=1.5)
    assert (decision.fire, decision.reason_code) == (False, GATE_INVALID_REQUEST)
    assert decision.issues == [{"path": "horizon", "message": "must be an integer ≥ 0"}]


def test_a_batch_decides_each_item_and_refuses_only_the_bad_one(gate: GateClient) -> None:
    decisions = gate.decide_batch([EXAMPLE_A, GateRequest(model_name="gpt-5", output_tokens=-1), {"model_name": "claude-opus-4-6", "output_chars": 8_000}])
    assert [(d.fire, d.reason_code) for d in decisions] == [(True, "net_positive"), (False, GATE_INVALID_REQUEST), (False, "below_threshold")]
    assert decisions[0].net_saving_usd == 0.38925000000000004
    assert decisions[1].issues[0]["path"] == "items.1.output_tokens"


@pytest.mark.skipif(not KEY, reason="the test gate has no key")
def test_a_wrong_key_fails_safe_as_unauthorized() -> None:
    with GateClient(URL, api_key="wrong-key-0123456789abcdef", timeout=10) as client:
        decision = client.decide(**EXAMPLE_A)
    assert (decision.fire, decision.reason_code) == (False, GATE_UNAUTHORIZED)
    assert decision.error is not None and decision.error.status == 401


def test_the_async_client_gets_the_same_decisions(monkeypatch: pytest.MonkeyPatch) -> None:
    async def main() -> list:
        async with AsyncGateClient(URL, api_key=KEY, timeout=10) as client:
            return await asyncio.gather(client.decide(**EXAMPLE_A), client.decide({**EXAMPLE_A, "horizon": 0}))

    fired, held = asyncio.run(main())
    assert fired.net_saving_usd == 0.38925000000000004 and fired.reason == REASON_A
    assert (held.fire, held.reason_code) == (False, "net_not_positive")


def test_a_port_with_no_gate_fails_safe_as_unreachable() -> None:
    with socket.socket() as probe:  # a loopback port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    decision = GateClient(f"http://127.0.0.1:{port}", timeout=1).decide(**EXAMPLE_A)
    assert (decision.fire, decision.reason_code) == (False, GATE_UNREACHABLE)
