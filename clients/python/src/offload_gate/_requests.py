"""@module _requests: the request bodies, as dataclasses with the gate's field
names (the reference gate's ``OffloadGateInputs`` names, and the fields the
service adds). A field left as ``None`` is not sent. The fields are generated
from the worker's OpenAPI document (``_models.py``); what is written here is
the client's own: ``extra`` and the JSON body."""

from __future__ import annotations

from dataclasses import dataclass, field

from ._json import JSONObject, _Request, _to_json
from ._models import GateRequestFields, OutcomeFields, PlanRequestFields, SegmentFields, SessionReportFields


@dataclass
class GateRequest(GateRequestFields, _Request):
    """The body of ``POST /v1/gate`` (and one item of ``/v1/gate/batch``).

    The first nine fields are the reference's ``OffloadGateInputs``; a field left
    as ``None`` is not sent, so the gate fills it from its priors.

    Example::

        GateRequest(model_name="claude-opus-4-6", output_chars=len(text), tool_name="web_fetch")
    """

    #: Fields this client does not know yet, sent as they are.
    extra: JSONObject = field(kw_only=True, default_factory=dict)


@dataclass
class Segment(SegmentFields, _Request):
    """One stretch of cached history for ``POST /v1/plan``: fixed context
    (``tokens`` only), or a tool output that may be stubbed (with an ``id``).

    Example::

        [Segment(8_000), Segment(42_000, id="call_1", recall_probability=0.2), Segment(1_500)]
    """

    extra: JSONObject = field(kw_only=True, default_factory=dict)


@dataclass
class PlanRequest(PlanRequestFields, _Request):
    """The body of ``POST /v1/plan``: which cached tool outputs to stub now."""

    extra: JSONObject = field(kw_only=True, default_factory=dict)


@dataclass
class Outcome(OutcomeFields, _Request):
    """What happened after a decision, for ``POST /v1/outcomes``.

    ``turns_after``: how many more turns the session ran; ``recalled``: whether
    the stub was recalled (False for a decision that did not fire);
    ``cached_turns``: how many of those turns read the prefix from the cache;
    ``recalled_ids``: for a clearing plan, which of its stubbed ids were recalled;
    ``cleared_tool_uses`` / ``cleared_input_tokens``: for a server-side clearing
    decision (``POST /v1/context-management``) only, and required there, what the
    response's ``applied_edits`` said the API cleared.
    """

    extra: JSONObject = field(kw_only=True, default_factory=dict)


@dataclass
class SessionReport(SessionReportFields, _Request):
    """A finished session's whole bill, for ``POST /v1/sessions``: ``usage`` is
    the provider's token usage summed over the session; ``covariate`` what the
    breaker regresses the bill on (docs/api/ledger.md), a size the gate's
    decisions cannot change; ``cache_misses`` the input tokens the provider
    reported as cache misses, split by whether the call came right after one of
    the gate's own rewrites: ``{"after_gate_rewrite": n, "other": n}``."""

    extra: JSONObject = field(kw_only=True, default_factory=dict)

    def to_json(self) -> JSONObject:
        body = _to_json(self)
        body["usage"] = dict(self.usage)
        if self.cache_misses is not None:
            body["cache_misses"] = dict(self.cache_misses)
        return body
