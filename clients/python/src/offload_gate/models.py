"""Requests and answers, as dataclasses with the gate's field names (the
reference gate's ``OffloadGateInputs`` / ``OffloadGateDecision`` names, and
the fields the service adds).

Answers are tolerant: a field the server adds later lands in ``extra``
instead of breaking the parse, and a field it leaves out takes its default.
Only what the agent acts on (``fire``, ``reason_code``) is required.

This module is the public import path. The dataclasses live by what they are:
``_requests`` (what is sent), ``_answers`` (what comes back) and ``_json``
(how both meet JSON).
"""

from __future__ import annotations

from ._answers import (
    GateDecision,
    Plan,
    PlanCandidate,
    Report,
    ReportResult,
    ResolvedInputs,
    StalePricing,
    WorstCase,
)
from ._json import JSONObject, as_request, as_requests
from ._requests import GateRequest, Outcome, PlanRequest, Segment, SessionReport

__all__ = [
    "GateDecision",
    "GateRequest",
    "JSONObject",
    "Outcome",
    "Plan",
    "PlanCandidate",
    "PlanRequest",
    "Report",
    "ReportResult",
    "ResolvedInputs",
    "Segment",
    "SessionReport",
    "StalePricing",
    "WorstCase",
    "as_request",
    "as_requests",
]
