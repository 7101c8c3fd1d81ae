"""@module _answers: the gate's answers, as dataclasses. Tolerant: a field the
server adds later lands in ``extra``, and a field it leaves out takes its
default. Only what the agent acts on (``fire``, ``reason_code``, a plan's
``stub``) is required. The fields are generated from the worker's OpenAPI
document (``_models.py``); what is written here is the client's own: parsing,
the safe defaults when the gate does not answer, ``extra`` and ``error``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Mapping, Optional

from ._json import JSONObject, _Answer, _from_json
from ._models import (
    GateDecisionFields,
    PlanCandidateFields,
    PlanFields,
    ReportFields,
    ReportResultFields,
    ResolvedInputsFields,
    StalePricingFields,
    WorstCaseFields,
)
from .errors import GATE_INVALID_REQUEST, GateAnswerError, GateError


@dataclass
class StalePricing(StalePricingFields, _Answer):
    """Set when KV could not be read and a row past its TTL priced the answer."""

    extra: JSONObject = field(kw_only=True, default_factory=dict)


@dataclass
class WorstCase(WorstCaseFields, _Answer):
    """The worst corner of the prior ranges, when the request gave any."""

    extra: JSONObject = field(kw_only=True, default_factory=dict)


@dataclass
class ResolvedInputs(ResolvedInputsFields, _Answer):
    """The inputs as the gate used them, every default filled in."""

    extra: JSONObject = field(kw_only=True, default_factory=dict)


def _issues(data: Any) -> List[JSONObject]:
    return [dict(issue) for issue in data] if isinstance(data, list) else []


@dataclass
class GateDecision(GateDecisionFields):
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

    ``lifecycle`` is the priced model's (deprecated, retired, replaced_by), when the row carries one.
    """

    #: For a batch item the gate refused: ``[{path, message}]``.
    issues: List[JSONObject] = field(kw_only=True, default_factory=list)
    #: Answer fields this client does not know yet.
    extra: JSONObject = field(kw_only=True, default_factory=dict)
    #: Why the client answered for the gate (None when the gate decided).
    error: Optional[GateError] = field(kw_only=True, default=None, compare=False, repr=False)

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
class PlanCandidate(PlanCandidateFields, _Answer):
    """One stubbable tool output in a plan's answer."""

    extra: JSONObject = field(kw_only=True, default_factory=dict)


@dataclass
class Plan(PlanFields):
    """The answer of ``POST /v1/plan``: the ids in ``stub`` are the tool outputs
    to replace by stubs on the next turn, in history order. The safe default,
    when the gate does not answer, is the empty plan: stub nothing."""

    extra: JSONObject = field(kw_only=True, default_factory=dict)
    error: Optional[GateError] = field(kw_only=True, default=None, compare=False, repr=False)

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
class ReportResult(ReportResultFields, _Answer):
    """What became of one reported item: ``status`` is ``accepted`` (``repeated``
    when this exact report was already stored; ``pending`` when its decision had
    not reached the ledger yet and the outcome waits for it), ``unknown_decision``,
    ``conflict`` (a different report for the same decision or session) or
    ``invalid`` (with ``issues``)."""

    extra: JSONObject = field(kw_only=True, default_factory=dict)


@dataclass
class Report(ReportFields):
    """The answer to ``report_outcomes`` / ``report_session``: one result per
    item, in order, and the tally. When the gate did not take the report,
    ``results`` is empty and ``error`` says why (``ok`` is False)."""

    extra: JSONObject = field(kw_only=True, default_factory=dict)
    error: Optional[GateError] = field(kw_only=True, default=None, compare=False, repr=False)

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
