"""Requests and answers, as dataclasses with the gate's field names (the
reference gate's ``OffloadGateInputs`` / ``OffloadGateDecision`` names, and
the fields the service adds).

Answers are tolerant: a field the server adds later lands in ``extra``
instead of breaking the parse, and a field it leaves out takes its default.
Only what the agent acts on (``fire``, ``reason_code``) is required.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, Type, TypeVar, Union

from .errors import GATE_INVALID_REQUEST, GateAnswerError, GateError

JSONObject = Dict[str, Any]
T = TypeVar("T")
A = TypeVar("A", bound="_Answer")

# Fields a dataclass keeps for itself, never sent or read as JSON.
_LOCAL_FIELDS = frozenset({"extra", "error"})


def _to_json(obj: Any) -> JSONObject:
    """The JSON body of a request dataclass: unset (None) fields left out, ``extra`` merged in."""
    body: JSONObject = {}
    for f in dataclasses.fields(obj):
        if f.name in _LOCAL_FIELDS:
            continue
        value = getattr(obj, f.name)
        if value is None:
            continue
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, list):
            value = [_item_json(item) for item in value]
        body[f.name] = value
    body.update(getattr(obj, "extra", None) or {})
    return body


def _item_json(item: Any) -> Any:
    """A list item as JSON: a request dataclass (a Segment) by its own body, a tuple as a list."""
    if isinstance(item, _Request):
        return item.to_json()
    if isinstance(item, Mapping):
        return dict(item)
    return list(item) if isinstance(item, tuple) else item


def _from_json(cls: Type[T], data: Any, nested: Mapping[str, Callable[[Any], Any]] = {}) -> T:
    """Builds an answer dataclass from a JSON object: known fields by name
    (``nested`` converts the structured ones), everything else into ``extra``."""
    if not isinstance(data, Mapping):
        raise GateAnswerError(f"expected a JSON object for {cls.__name__}, got {type(data).__name__}")
    names = {f.name for f in dataclasses.fields(cls)} - _LOCAL_FIELDS  # type: ignore[arg-type]
    known: JSONObject = {}
    extra: JSONObject = {}
    for key, value in data.items():
        if key in names:
            convert = nested.get(key)
            known[key] = convert(value) if convert is not None and value is not None else value
        else:
            extra[key] = value
    try:
        return cls(**known, extra=extra)  # type: ignore[call-arg]
    except TypeError as exc:  # a required field is missing
        raise GateAnswerError(f"incomplete {cls.__name__}: {exc}") from exc


def _as_request(cls: Type[T], request: Any, fields: Mapping[str, Any]) -> T:
    """``request`` as ``cls``: an instance as it is, else a mapping or any dataclass
    (e.g. the reference's ``OffloadGateInputs``) with ``fields`` on top. Keys the
    dataclass does not know go to ``extra`` (the gate refuses them by name)."""
    if isinstance(request, cls) and not fields:
        return request
    data: JSONObject = {}
    if isinstance(request, cls):
        data.update(_to_json(request))
    elif dataclasses.is_dataclass(request) and not isinstance(request, type):
        data.update(dataclasses.asdict(request))
    elif isinstance(request, Mapping):
        data.update(request)
    elif request is not None:
        raise TypeError(f"expected a {cls.__name__}, a mapping or a dataclass, got {type(request).__name__}")
    data.update(fields)
    names = {f.name for f in dataclasses.fields(cls)} - _LOCAL_FIELDS  # type: ignore[arg-type]
    extra = {key: value for key, value in data.items() if key not in names}
    return cls(**{key: value for key, value in data.items() if key in names}, extra=extra)  # type: ignore[call-arg]


class _Request:
    """A request dataclass: its JSON body is its set fields plus ``extra``."""

    def to_json(self) -> JSONObject:
        return _to_json(self)


class _Answer:
    """An answer dataclass: read from JSON by field name, unknown keys kept in ``extra``.
    ``_nested`` names the fields that are answers themselves."""

    _nested: ClassVar[Mapping[str, Callable[[Any], Any]]] = {}

    @classmethod
    def from_json(cls: Type[A], data: Any) -> A:
        return _from_json(cls, data, cls._nested)


# --- requests ---------------------------------------------------------------


@dataclass
class GateRequest(_Request):
    """The body of ``POST /v1/gate`` (and one item of ``/v1/gate/batch``).

    The first nine fields are the reference's ``OffloadGateInputs``; a field left
    as ``None`` is not sent, so the gate fills it from its priors.

    Example::

        GateRequest(model_name="claude-opus-4-6", output_chars=len(text), tool_name="web_fetch")
    """

    model_name: str
    output_tokens: Optional[float] = None
    output_chars: Optional[int] = None
    horizon: Optional[int] = None
    recall_probability: Optional[float] = None
    large_offload_threshold_tokens: Optional[int] = None
    stub_tokens: Optional[int] = None
    recall_input_tokens: Optional[int] = None
    recall_output_tokens: Optional[int] = None
    pricing_mode: Optional[str] = None
    cache_hit_rate: Optional[float] = None
    context_tokens: Optional[int] = None
    offload_at: Optional[str] = None
    suffix_tokens: Optional[int] = None
    cache_ttl: Optional[str] = None
    horizon_range: Optional[Tuple[int, int]] = None
    recall_probability_range: Optional[Tuple[float, float]] = None
    cache_hit_rate_range: Optional[Tuple[float, float]] = None
    session_id: Optional[str] = None
    tool_name: Optional[str] = None
    #: Fields this client does not know yet, sent as they are.
    extra: JSONObject = field(default_factory=dict)


@dataclass
class Segment(_Request):
    """One stretch of cached history for ``POST /v1/plan``: fixed context
    (``tokens`` only), or a tool output that may be stubbed (with an ``id``).

    Example::

        [Segment(8_000), Segment(42_000, id="call_1", recall_probability=0.2), Segment(1_500)]
    """

    tokens: int
    id: Optional[str] = None
    recall_probability: Optional[float] = None
    stub_tokens: Optional[int] = None
    extra: JSONObject = field(default_factory=dict)


@dataclass
class PlanRequest(_Request):
    """The body of ``POST /v1/plan``: which cached tool outputs to stub now."""

    model_name: str
    segments: List[Union[Segment, Mapping[str, Any]]] = field(default_factory=list)
    horizon: Optional[int] = None
    recall_probability: Optional[float] = None
    cache_hit_rate: Optional[float] = None
    cache_ttl: Optional[str] = None
    stub_tokens: Optional[int] = None
    recall_input_tokens: Optional[int] = None
    recall_output_tokens: Optional[int] = None
    large_offload_threshold_tokens: Optional[int] = None
    session_id: Optional[str] = None
    tool_name: Optional[str] = None
    extra: JSONObject = field(default_factory=dict)


@dataclass
class Outcome(_Request):
    """What happened after a decision, for ``POST /v1/outcomes``.

    ``turns_after``: how many more turns the session ran; ``recalled``: whether
    the stub was recalled (False for a decision that did not fire);
    ``cached_turns``: how many of those turns read the prefix from the cache;
    ``recalled_ids``: for a clearing plan, which of its stubbed ids were recalled.
    """

    decision_id: str
    turns_after: int
    recalled: bool
    cached_turns: Optional[int] = None
    context_tokens: Optional[int] = None
    recalled_ids: Optional[List[str]] = None
    extra: JSONObject = field(default_factory=dict)


@dataclass
class SessionReport(_Request):
    """A finished session's whole bill, for ``POST /v1/sessions``: ``usage`` is
    the provider's token usage summed over the session."""

    session_id: str
    model_name: str
    turns: int
    usage: Mapping[str, Any] = field(default_factory=dict)
    extra: JSONObject = field(default_factory=dict)

    def to_json(self) -> JSONObject:
        body = _to_json(self)
        body["usage"] = dict(self.usage)
        return body


# --- answers ----------------------------------------------------------------


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


def as_request(cls: Type[T], request: Any = None, **fields: Any) -> T:
    """Public form of the coercion the clients use: ``cls`` from an instance, a
    mapping or any dataclass, with keyword fields on top.

    >>> as_request(GateRequest, {"model_name": "gpt-5"}, output_tokens=20_000).output_tokens
    20000
    """
    return _as_request(cls, request, fields)


def as_requests(cls: Type[T], items: Sequence[Any]) -> List[T]:
    return [_as_request(cls, item, {}) for item in items]
