"""A scripted transport and clock for unit tests: no sockets, no sleeping."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from offload_gate import Response

Answer = Union[Response, BaseException, Callable[["Sent"], Response]]


@dataclass
class Sent:
    method: str
    path: str
    body: Any
    headers: Dict[str, str]
    timeout: float


def ok(payload: Any, status: int = 200, **headers: str) -> Response:
    return Response(status=status, body=json.dumps(payload).encode(), headers={k.replace("_", "-").lower(): v for k, v in headers.items()})


def error(status: int, code: str, message: str, issues: Optional[List[Mapping[str, str]]] = None, **headers: str) -> Response:
    return ok({"error": {"code": code, "message": message, "issues": issues or []}}, status, **headers)


@dataclass
class FakeTransport:
    """Answers each request with the next scripted answer (the last one repeats)."""

    answers: List[Answer]
    sent: List[Sent] = field(default_factory=list)
    closed: bool = False
    clock: Optional["FakeClock"] = None
    #: Seconds each request takes on the fake clock.
    latency: float = 0.0

    def request(self, method: str, path: str, body: Optional[bytes], headers: Mapping[str, str], timeout: float) -> Response:
        sent = Sent(method, path, json.loads(body) if body else None, dict(headers), timeout)
        self.sent.append(sent)
        if self.clock is not None:
            self.clock.now += self.latency
        answer = self.answers[min(len(self.sent), len(self.answers)) - 1]
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return answer(sent)
        return answer

    def close(self) -> None:
        self.closed = True


@dataclass
class FakeClock:
    now: float = 1000.0
    slept: List[float] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


# The documented answer for worked example A (the OpenAPI example), as the gate sends it.
EXAMPLE_A_ANSWER: Dict[str, Any] = {
    "fire": True,
    "net_saving_usd": 0.38925000000000004,
    "reprefill_saving_usd": 0.4,
    "stub_carry_cost_usd": 0.004,
    "expected_recall_hop_cost_usd": 0.00675,
    "reason": "net=$0.3893 (saving=$0.4000 − stub=$0.0040 − recall=$0.0067); H=4 p_recall=0.30 model=claude-opus-4-6",
    "reason_code": "net_positive",
    "pricing_mode": "seed",
    "context_premium_saving_usd": 0,
    "break_even_horizon": 1,
    "break_even_output_tokens": 10000,
    "priced_as": {"model": "claude-opus-4-6", "input": 5, "output": 25},
    "stale_pricing": None,
    "inputs": {
        "model_name": "claude-opus-4-6",
        "output_tokens": 20000,
        "horizon": 4,
        "recall_probability": 0.3,
        "large_offload_threshold_tokens": 10000,
        "stub_tokens": 200,
        "recall_input_tokens": 2000,
        "recall_output_tokens": 500,
    },
}


@dataclasses.dataclass
class OffloadGateInputs:
    """The reference gate's input dataclass, field for field."""

    output_tokens: float
    horizon: int
    recall_probability: float
    model_name: str
    large_offload_threshold_tokens: int = 10_000
    stub_tokens: int = 200
    recall_input_tokens: int = 2_000
    recall_output_tokens: int = 500
