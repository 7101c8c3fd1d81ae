"""The blocking client: :class:`GateClient`."""

from __future__ import annotations

import time
from typing import Any, Callable, List, Optional, Sequence, TypeVar

from ._calls import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_POOL_SIZE,
    DEFAULT_TIMEOUT,
    Call,
    ClientBase,
    answer_of,
    merge_reports,
   
    unreachable,
)
from .errors import GateError, GateUnreachable
from .models import GateDecision, Plan, Report
from .transport import Transport

T = TypeVar("T")


class GateClient(ClientBase):
    """A blocking client for the gate, safe to share between threads.

    It never raises into the agent's loop: when the gate does not answer in
    time (or answers with an error), ``decide`` returns a no-fire decision
    whose ``reason_code`` says why (``gate_unreachable``, ``gate_unavailable``,
    ...), ``plan`` the empty plan, and the reports an answer with ``ok`` False.
    Pass ``raise_on_error=True`` (here or per call) to get a
    :class:`~offload_gate.GateError` instead.

    ``base_url`` defaults to ``$OFFLOAD_GATE_URL``, then ``http://127.0.0.1:8787``;
    ``api_key`` to ``$OFFLOAD_GATE_API_KEY``. ``timeout`` is the most one call
    may take, in seconds, retries included. 429 and 503 are retried up to
    ``max_retries`` times, after the answer's Retry-After, unless that wait
    would outlast the timeout.

    Example::

        from offload_gate import GateClient

        with GateClient() as gate:
            decision = gate.decide(model_name="claude-opus-4-6", output_chars=len(text))
            if decision.fire:
                text = stub_for(text)
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        max_retries: int = DEFAULT_MAX_RETRIES,
        raise_on_error: bool = False,
        transport: Optional[Transport] = None,
        pool_size: int = DEFAULT_POOL_SIZE,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(
            base_url, api_key, timeout, max_retries=max_retries, raise_on_error=raise_on_error, transport=transport, pool_size=pool_size
        )
        self._sleep = sleep
        self._clock = clock

    def decide(
        self, request: Any = None, /, *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None, **fields: Any
    ) -> GateDecision:
        """Whether offloading one tool output saves money (``POST /v1/gate``).

        Takes a :class:`~offload_gate.GateRequest`, a mapping, any dataclass
        with the gate's field names (the reference's ``OffloadGateInputs``), or
        the fields as keywords::

            gate.decide(model_name="claude-opus-4-6", output_tokens=20_000, horizon=4, recall_probability=0.3)
        """
        return self._run(self._decide_call(request, fields), timeout, raise_on_error)

    def decide_batch(
        self, requests: Sequence[Any], *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None
    ) -> List[GateDecision]:
        """One decision per request, in order (``POST /v1/gate/batch``, 100 a call).
        An item the gate refuses comes back as a no-fire decision with reason_code
        ``gate_invalid_request`` and its ``issues``; the others are decided."""
        decisions: List[GateDecision] = []
        for call in self._batch_calls(requests):
            chunk: List[GateDecision] = self._run(call, timeout, raise_on_error)
            decisions.extend(chunk)
        return decisions

    def plan(self, request: Any = None, /, *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None, **fields: Any) -> Plan:
        """Which cached tool outputs to replace by stubs before the next turn (``POST /v1/plan``)."""
        return self._run(self._plan_call(request, fields), timeout, raise_on_error)

    def report_outcomes(
        self, outcomes: Sequence[Any], *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None
    ) -> Report:
        """What happened after each decision (``POST /v1/outcomes``, 100 a call)."""
        return self._report(self._outcome_calls(outcomes), timeout, raise_on_error)

    def report_session(
        self, session: Any = None, /, *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None, **fields: Any
    ) -> Report:
        """A finished session's bill (``POST /v1/sessions``)::

        gate.report_session(session_id="s-1", model_name="claude-opus-4-6", turns=12, usage=usage)
        """
        return self.report_sessions([session if not fields else {**_mapping(session), **fields}], timeout=timeout, raise_on_error=raise_on_error)

    def report_sessions(
        self, sessions: Sequence[Any], *, timeout: Optional[float] = None, raise_on_error: Optional[bool] = None
    ) -> Report:
        """Several finished sessions' bills (``POST /v1/sessions``, 100 a call)."""
        return self._report(self._session_calls(sessions), timeout, raise_on_error)

    def close(self) -> None:
        """Closes the idle connections."""
        self._transport.close()

    def __enter__(self) -> "GateClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _report(self, calls: Sequence[Call[Report]], timeout: Optional[float], raise_on_error: Optional[bool]) -> Report:
        reports: List[Report] = []
        for call in calls:
            reports.append(self._run(call, timeout, raise_on_error))
            if not reports[-1].ok:
                break
        return merge_reports(reports)

    def _run(self, call: Call[T], timeout: Optional[float], raise_on_error: Optional[bool]) -> T:
        budget = self.timeout if timeout is None else timeout
        deadline = self._clock() + budget
        try:
            attempt = 0
            while True:
                remaining = deadline - self._clock()
                if remaining <= 0:
                    raise GateUnreachable(f"no answer within the {budget:g}s timeout")
                try:
                    response = self._transport.request(call.method, call.path, call.body, self._headers, remaining)
                except Exception as exc:
                    raise unreachable(exc, budget) from exc
                wait = self.retry.wait(response, attempt, deadline - self._clock())
                if wait is None:
                    return answer_of(call, response)
                self._sleep(wait)
                attempt += 1
        except GateError as error:
            return self._fallback(call, error, raise_on_error)


def _mapping(session: Any) -> Any:
    import dataclasses

    if session is None:
        return {}
    if dataclasses.is_dataclass(session) and not isinstance(session, type):
        return session.to_json() if hasattr(session, "to_json") else dataclasses.asdict(session)
    return dict(session)
