"""What can go wrong between an agent and the gate, and the reason codes the
client answers with when it falls back to the safe default instead of raising.

The gate's own reason codes (``net_positive``, ``below_threshold``, ...) come
from the server; the ones here never do: they say the gate did not decide.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

#: The gate could not be reached, or did not answer within the timeout.
GATE_UNREACHABLE = "gate_unreachable"
#: The gate answered with a 5xx (after the retries a 503 allows).
GATE_UNAVAILABLE = "gate_unavailable"
#: The caller's tenant is past its rate limit, and Retry-After is past the timeout.
GATE_RATE_LIMITED = "gate_rate_limited"
#: The gate key is missing or wrong (401).
GATE_UNAUTHORIZED = "gate_unauthorized"
#: The gate refused the request itself (400, 404, 413, 415): the error's issues name the field.
GATE_INVALID_REQUEST = "gate_invalid_request"
#: The gate answered 2xx with a body this client cannot read.
GATE_BAD_ANSWER = "gate_bad_answer"

#: Every reason code the client itself may put on a fallback answer.
FALLBACK_REASON_CODES = frozenset(
    {GATE_UNREACHABLE, GATE_UNAVAILABLE, GATE_RATE_LIMITED, GATE_UNAUTHORIZED, GATE_INVALID_REQUEST, GATE_BAD_ANSWER}
)


class GateError(Exception):
    """The gate did not answer a call. ``reason_code`` is one of
    :data:`FALLBACK_REASON_CODES`; ``status`` is the HTTP status when there was one.

    Example::

        try:
            client.decide(model_name="gpt-5", output_tokens=20_000, raise_on_error=True)
        except GateError as error:
            log.warning("gate: %s (%s)", error.reason_code, error)
    """

    def __init__(
        self,
        reason_code: str,
        message: str,
        *,
        status: Optional[int] = None,
        code: Optional[str] = None,
        issues: Sequence[Mapping[str, Any]] = (),
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.reason_code = reason_code
        self.message = message
        self.status = status
        #: The error code in the gate's error body (``invalid_request``, ``rate_limited``, ...), if any.
        self.code = code
        #: The gate's ``[{path, message}]`` list for a refused request.
        self.issues = [dict(issue) for issue in issues]
        #: Seconds the gate asked to wait (Retry-After), if it said.
        self.retry_after = retry_after


class GateUnreachable(GateError):
    """No answer: the connection failed, or the timeout ran out."""

    def __init__(self, message: str) -> None:
        super().__init__(GATE_UNREACHABLE, message)


class GateHTTPError(GateError):
    """The gate answered with an error status (in its one error shape)."""


class GateAnswerError(GateError):
    """The gate answered 2xx, but not with the JSON this client expects."""

    def __init__(self, message: str, *, status: Optional[int] = None) -> None:
        super().__init__(GATE_BAD_ANSWER, message, status=status)


def reason_code_for_status(status: int) -> str:
    """The fallback reason code for an HTTP error status.

    >>> reason_code_for_status(503)
    'gate_unavailable'
    """
    if status == 429:
        return GATE_RATE_LIMITED
    if status in (401, 403):
        return GATE_UNAUTHORIZED
    if status >= 500:
        return GATE_UNAVAILABLE
    return GATE_INVALID_REQUEST
