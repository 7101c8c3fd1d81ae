"""@module _answers: the gate's answers, as dataclasses. Tolerant: a field the
server adds later lands in ``extra``, and a field it leaves out takes its
default. Only what the agent acts on (``fire``, ``reason_code``, a plan's
``stub``) is required."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Mapping, Optional

from ._json import JSONObject, _Answer, _from_json
from .errors import GATE_INVALID_REQUEST, GateAnswerError, GateError


@dataclass
class StalePricing(_Answer):
    """Set when KV could not be read and a row past its TTL priced the answer."""

    age_seconds: float = 0.0
    detail: str = ""
    extra: JSONObject = field(default_factory=dict)


@dataclass
class WorstCase(_Answer):
    """The worst corner of the prior ranges, when the request gave any."""

    net_saving_usd: float = 0.0
    horizon: Optional[int] = None
    recall_probability: Optional[float] = None
    cache_hit_rate: Optional[float] = None
    extra: JSONObject = field(default_factory=dict)


@dataclass
class ResolvedInputs(_Answer):
    """The inputs as the gate used them, every default filled in."""

    model_name: str = ""
    output_tokens: float = 0.0
    horizon: int = 0
    recall_probability: float = 0.0
    large_offload_threshold_tokens: int = 0
    stub_tokens: int = 0
    recall_input_tokens: int = 0
    recall_output_tokens: int = 0
    output_chars: Optional[int] = None
    cache_hit_rate: Optional[float] = None
    context_tokens: Optional[int] = None
    offload_at: Optional[str] = None
    suffix_tokens: Optional[int] = None
    cache_ttl: Optional[str] = None
    recall_placement: Optional[str] = None
    horizon_range: Optional[List[int]] = None
    recall_probability_range: Optional[List[float]] = None
    cache_hit_rate_range: Optional[List[float]] = None
    extra: JSONObject = field(default_factory=dict)


def _issues(data: Any) -> List[JSONObject]:
    return [dict(issue) for issue in data] if isinstance(data, list) else []


@dataclass
class GateDecision:
    """The answer of ``POST /v1/gate``: the reference's ``OffloadGateDecision``
    fields and the ones the service adds, as attributes.

    A decision the client made itself, because the gate did not answer, has
    ``fire=False``, a ``reason_code`` from :data:`~offload_gate.FALLBACK_REASON_CODES`
    and the cause in ``error``; ``fallback`` is then True.

    Example::

        decision = client.decide(model_name="claude-opus-4-6", output_tokens=20_000)
        if decision.fire:
            ...  # replace the output with a stub
        elif decision.fallback:
            log.info("gate: %s", decision.reason)
    """

    fire: bool
    reason_code: str
    reason: str = ""
    net_saving_usd: float = 0.0
    reprefill_saving_usd: float = 0.0
    stub_carry_cost_usd: float = 0.0
    expected_recall_hop_cost_usd: float = 0.0
    context_premium_saving_usd: float = 0.0
    suffix_rewrite_cost_usd: float = 0.0
    pricing_mode: Optional[str] = None
    break_even_horizon: Optional[int] = None
    break_even_output_tokens: Optional[int] = None
    priced_as: Optional[JSONObject] = None
    stale_pricing: Optional[StalePricing] = None
    #: The priced model's lifecycle (deprecated, retired, replaced_by), when the row carries one.
    lifecycle: Optional[JSONObject] = None
    inputs: Optional[ResolvedInputs] = None
    decision_id: Optional[str] = None
    would_fire: Optional[bool] = None
    worst_case: Optional[WorstCase] = None
    #: For a batch item the gate refused: ``[{path, message}]``.
    issues: List[JSONObject] = field(default_factory=list)
    #: Answer fields this client does not know yet.
    extra: JSONObject = field(default_factory=dict)
    #: Why the client answered for the gate (None when the gate decided).
    error: Optional[GateError] = field(default=None, compare=False, repr=False)

    @property
    def fallback(self) -> bool:
        """True when the gate did not decide and this is the client's safe default."""
        return self.error is not None

    @classmethod
    def from_json(cls, data: Any) -> "GateDecision":
        """Parses a decision; a batch entry ``{"error": ...}`` becomes a no-fire
        decision with reason_code ``gate_invalid_request`` and its issues."""
        if isinstance(data, Mapping) and "error" in data and "fire" not in data:
            return cls.from_error(_item_error(data["error"]))
        decision = _from_json(
            cls,
            data,
            {"stale_pricing": StalePricing.from_json, "inputs": ResolvedInputs.from_json, "worst_case": WorstCase.from_json},
        )
        if not isinstance(decision.fire, bool) or not isinstance(decision.reason_code, str):
            raise GateAnswerError("a decision must carry a boolean 'fire' and a string 'reason_code'")
        return decision

    @classmethod
    def from_error(cls, error: GateError) -> "GateDecision":
        """The safe default when the gate did not decide: do not offload."""
        return cls(
            fire=False,
            reason_code=error.reason_code,
            reason=f"the gate did not decide ({error.reason_code}): {error.message}; not offloading",
            issues=list(error.issues),
            error=error,
        )


def _item_error(data: Any) -> GateError:
    body = data if isinstance(data, Mapping) else {}
    return GateError(
        GATE_INVALID_REQUEST,
        str(body.get("message", "the gate refused this item")),
        status=400,
        code=body.get("code") if isinstance(body.get("code"), str) else None,
        issues=_issues(body.get("issues")),
    )


@dataclass
class PlanCandidate(_Answer):
    """One stubbable tool output in a plan's answer."""

    id: str = ""
    stubbed: bool = False
    alone_net_saving_usd: Optional[float] = None
    extra: JSONObject = field(default_factory=dict)


@dataclass
class Plan:
    """The answer of ``POST /v1/plan``: the ids in ``stub`` are the tool outputs
    to replace by stubs on the next turn, in history order. The safe default,
    when the gate does not answer, is the empty plan: stub nothing."""

    stub: List[str]
    reason_code: str
    reason: str = ""
    net_saving_usd: float = 0.0
    keep_cost_usd: Optional[float] = None
    plan_cost_usd: Optional[float] = None
    rewrite_from_tokens: Optional[int] = None
    rewritten_tokens: Optional[int] = None
    candidates: List[PlanCandidate] = field(default_factory=list)
    priced_as: Optional[JSONObject] = None
    stale_pricing: Optional[StalePricing] = None
    inputs: Optional[JSONObject] = None
    decision_id: Optional[str] = None
    extra: JSONObject = field(default_factory=dict)
    error: Optional[GateError] = field(default=None, compare=False, repr=False)

    @property
    def fallback(self) -> bool:
        """True when the gate did not plan and this is the client's empty plan."""
        return self.error is not None

    @classmethod
    def from_json(cls, data: Any) -> "Plan":
        plan = _from_json(
            cls,
            data,
            {
                "stale_pricing": StalePricing.from_json,
                "candidates": lambda items: [PlanCandidate.from_json(item) for item in items],
            },
        )
        if not isinstance(plan.stub, list) or not all(isinstance(i, str) for i in plan.stub):
            raise GateAnswerError("a plan must carry 'stub', a list of ids")
        if not isinstance(plan.reason_code, str):
            raise GateAnswerError("a plan must carry a string 'reason_code'")
        return plan

    @classmethod
    def from_error(cls, error: GateError) -> "Plan":
        return cls(
            stub=[],
            reason_code=error.reason_code,
            reason=f"the gate did not plan ({error.reason_code}): {error.message}; stubbing nothing",
            error=error,
        )


@dataclass
class ReportResult(_Answer):
    """What became of one reported item: ``status`` is ``accepted`` (``repeated``
    when this exact report was already stored; ``pending`` when its decision had
    not reached the ledger yet and the outcome waits for it), ``unknown_decision``,
    ``conflict`` (a different report for the same decision or session) or
    ``invalid`` (with ``issues``)."""

    status: str = ""
    repeated: Optional[bool] = None
    pending: Optional[bool] = None
    message: Optional[str] = None
    issues: List[JSONObject] = field(default_factory=list)
    extra: JSONObject = field(default_factory=dict)


@dataclass
class Report:
    """The answer to ``report_outcomes`` / ``report_session``: one result per
    item, in order, and the tally. When the gate did not take the report,
    ``results`` is empty and ``error`` says why (``ok`` is False)."""

    results: List[ReportResult] = field(default_factory=list)
    accepted: int = 0
    unknown_decision: int = 0
    conflict: int = 0
    invalid: int = 0
    extra: JSONObject = field(default_factory=dict)
    error: Optional[GateError] = field(default=None, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        """True when the gate took the report (each item's own status is in ``results``)."""
        return self.error is None

    @classmethod
    def from_json(cls, data: Any) -> "Report":
        if not isinstance(data, Mapping) or not isinstance(data.get("results"), list):
            raise GateAnswerError("a report answer must carry 'results', a list")
        return _from_json(cls, data, {"results": lambda items: [ReportResult.from_json(item) for item in items]})

    @classmethod
    def from_error(cls, error: GateError) -> "Report":
        return cls(error=error)
