"""offload-gate's Python client: ask the gate whether offloading a large tool
output saves money, and fall back to "don't offload" when it cannot answer.

Example::

    from offload_gate import GateClient

    gate = GateClient()  # $OFFLOAD_GATE_URL, $OFFLOAD_GATE_API_KEY
    decision = gate.decide(model_name="claude-opus-4-6", output_chars=len(tool_output))
    if decision.fire:
        tool_output = make_stub(tool_output)
"""

from ._calls import (
    DEFAULT_BASE_URL,
    DEFAULT_MAX_RETRIES,
    DEFAULT_POOL_SIZE,
    DEFAULT_TIMEOUT,
    ENV_API_KEY,
    ENV_BASE_URL,
    MAX_ITEMS_PER_CALL,
    RetryPolicy,
)
from ._version import __version__
from .aio import AsyncGateClient
from .client import GateClient
from .errors import (
    FALLBACK_REASON_CODES,
    GATE_BAD_ANSWER,
    GATE_INVALID_REQUEST,
    GATE_RATE_LIMITED,
    GATE_UNAUTHORIZED,
    GATE_UNAVAILABLE,
    GATE_UNREACHABLE,
    GateAnswerError,
    GateError,
    GateHTTPError,
    GateUnreachable,
)
from .models import (
    GateDecision,
    GateRequest,
    Outcome,
    Plan,
    PlanCandidate,
    PlanRequest,
    Report,
    ReportResult,
    ResolvedInputs,
    Segment,
    SessionReport,
    StalePricing,
    WorstCase,
)
from ._constants import RECALL_PLACEMENT
from .session import DEFAULT_MIN_CHARS, RECALL_TOOL_NAME, OffloadSession, RecallStore, SessionSummary, default_stub
from .transport import HTTPTransport, Response, Transport

__all__ = [
    "AsyncGateClient",
    "DEFAULT_BASE_URL",
    "DEFAULT_MIN_CHARS",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_POOL_SIZE",
    "DEFAULT_TIMEOUT",
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "FALLBACK_REASON_CODES",
    "GATE_BAD_ANSWER",
    "GATE_INVALID_REQUEST",
    "GATE_RATE_LIMITED",
    "GATE_UNAUTHORIZED",
    "GATE_UNAVAILABLE",
    "GATE_UNREACHABLE",
    "GateAnswerError",
    "GateClient",
    "GateDecision",
    "GateError",
    "GateHTTPError",
    "GateRequest",
    "GateUnreachable",
    "HTTPTransport",
    "MAX_ITEMS_PER_CALL",
    "OffloadSession",
    "Outcome",
    "Plan",
    "PlanCandidate",
    "PlanRequest",
    "RECALL_PLACEMENT",
    "RECALL_TOOL_NAME",
    "RecallStore",
    "Report",
    "ReportResult",
    "ResolvedInputs",
    "Response",
    "RetryPolicy",
    "Segment",
    "SessionReport",
    "SessionSummary",
    "StalePricing",
    "Transport",
    "WorstCase",
    "__version__",
    "default_stub",
]
