"""@module _requests: the request bodies, as dataclasses with the gate's field
names (the reference gate's ``OffloadGateInputs`` names, and the fields the
service adds). A field left as ``None`` is not sent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Mapping, Optional, Tuple, Union

from ._json import JSONObject, _Request, _to_json


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
    recall_placement: Optional[str] = None
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
    recall_placement: Optional[str] = None
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
    ``recalled_ids``: for a clearing plan, which of its stubbed ids were recalled;
    ``cleared_tool_uses`` / ``cleared_input_tokens``: for a server-side clearing
    decision (``POST /v1/context-management``) only, and required there, what the
    response's ``applied_edits`` said the API cleared.
    """

    decision_id: str
    turns_after: int
    recalled: bool
    cached_turns: Optional[int] = None
    context_tokens: Optional[int] = None
    recalled_ids: Optional[List[str]] = None
    cleared_tool_uses: Optional[int] = None
    cleared_input_tokens: Optional[int] = None
    extra: JSONObject = field(default_factory=dict)


@dataclass
class SessionReport(_Request):
    """A finished session's whole bill, for ``POST /v1/sessions``: ``usage`` is
    the provider's token usage summed over the session."""

    session_id: str
    model_name: str
    turns: int
    usage: Mapping[str, Any] = field(default_factory=dict)
    #: What the breaker regresses the bill on (docs/api/ledger.md): a size the gate's decisions cannot change.
    covariate: Optional[float] = None
    extra: JSONObject = field(default_factory=dict)

    def to_json(self) -> JSONObject:
        body = _to_json(self)
        body["usage"] = dict(self.usage)
        return body
