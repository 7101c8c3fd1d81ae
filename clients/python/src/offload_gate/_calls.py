"""What the sync and async clients share: configuration, the calls (path,
body, how to read the answer, what to answer when the gate does not), and
the retry policy. Only the loop that runs a call differs between them."""

from __future__ import annotations

import json
import logging
import os
import random
from dataclasses import dataclass
from typing import Any, Callable, Generic, List, Mapping, Optional, Sequence, TypeVar

from .errors import GateAnswerError, GateError, GateHTTPError, GateUnreachable, reason_code_for_status
from .models import (
    GateDecision,
    GateRequest,
    Outcome,
    Plan,
    PlanRequest,
    Report,
    SessionReport,
    as_request,
    as_requests,
)
from .transport import HTTPTransport, Response, Transport, headers_of, parse_retry_after

from ._version import __version__ as __version__

#: The environment variable the gate key is read from when ``api_key`` is not given.
ENV_API_KEY = "OFFLOAD_GATE_API_KEY"
#: The environment variable the base URL is read from when ``base_url`` is not given.
ENV_BASE_URL = "OFFLOAD_GATE_URL"
#: Where ``npm run dev`` serves the gate.
DEFAULT_BASE_URL = "http://127.0.0.1:8787"
#: Seconds a call may take in all, retries included, before the client answers for the gate.
DEFAULT_TIMEOUT = 2.0
#: Retries after the first attempt, on 429 and 503 only.
DEFAULT_MAX_RETRIES = 2
#: Idle keep-alive connections kept (and, for the async client, requests in flight at once).
DEFAULT_POOL_SIZE = 16
#: Most items the gate takes in one batch, outcomes or sessions call; longer lists are sent in chunks.
MAX_ITEMS_PER_CALL = 100

#: The statuses a retry can help with: the gate said "later", and Retry-After says when.
RETRY_STATUSES = frozenset({429, 503})

log = logging.getLogger("offload_gate")

T = TypeVar("T")


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request to the gate: where, what, how to read a 2xx, and the safe default."""

    path: str
    payload: Any
    parse: Callable[[Any], T]
    fallback: Callable[[GateError], T]
    method: str = "POST"

    @property
    def body(self) -> bytes:
        return json.dumps(self.payload, separators=(",", ":"), allow_nan=False).encode()


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries on 429 and 503. The wait is the answer's Retry-After,
    else an exponential backoff with jitter; a retry that could not finish
    before the deadline is not tried (the caller gets its answer now)."""

    max_retries: int = DEFAULT_MAX_RETRIES
    backoff: float = 0.1

    def wait(self, response: Response, attempt: int, remaining: float) -> Optional[float]:
        """Seconds to wait before retrying ``response``, or None to stop here.

        >>> RetryPolicy().wait(Response(503, headers={"retry-after": "1"}), 0, remaining=5.0)
        1.0
        """
        if response.status not in RETRY_STATUSES or attempt >= self.max_retries:
            return None
        delay = parse_retry_after(response.headers.get("retry-after"))
        if delay is None:
            delay = self.backoff * (2**attempt) * random.uniform(0.5, 1.0)
        return delay if delay < remaining else None


def error_of(response: Response) -> GateError:
    """The error a non-2xx answer stands for, read from the gate's one error shape."""
    code: Optional[str] = None
    message = f"HTTP {response.status}"
    issues: Sequence[Mapping[str, Any]] = ()
    try:
        body = json.loads(response.body)
        error = body["error"]
        code, message = str(error["code"]), str(error["message"])
        issues = [dict(issue) for issue in error.get("issues", [])]
    except Exception:  # not the error shape (a proxy's page, say): the status says enough
        pass
    return GateHTTPError(
        reason_code_for_status(response.status),
        f"{message} (HTTP {response.status})",
        status=response.status,
        code=code,
        issues=issues,
        retry_after=parse_retry_after(response.headers.get("retry-after")),
    )


def answer_of(call: Call[T], response: Response) -> T:
    """The parsed answer of a 2xx, or the GateError a non-2xx or unreadable body stands for."""
    if not 200 <= response.status < 300:
        raise error_of(response)
    try:
        return call.parse(json.loads(response.body))
    except GateError:
        raise
    except Exception as exc:
        raise GateAnswerError(f"unreadable answer from {call.path}: {type(exc).__name__}: {exc}", status=response.status) from exc


def unreachable(exc: BaseException, budget: float) -> GateError:
    if isinstance(exc, TimeoutError):
        return GateUnreachable(f"no answer within the {budget:g}s timeout")
    return GateUnreachable(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)


def _chunks(items: Sequence[T]) -> List[Sequence[T]]:
    return [items[i : i + MAX_ITEMS_PER_CALL] for i in range(0, len(items), MAX_ITEMS_PER_CALL)]


def _decisions(count: int) -> Callable[[Any], List[GateDecision]]:
    def parse(data: Any) -> List[GateDecision]:
        decisions = data["decisions"]
        if not isinstance(decisions, list) or len(decisions) != count:
            raise GateAnswerError(f"expected {count} decisions, got {len(decisions) if isinstance(decisions, list) else decisions!r}")
        return [GateDecision.from_json(item) for item in decisions]

    return parse


def _fallbacks(count: int) -> Callable[[GateError], List[GateDecision]]:
    def fallback(error: GateError) -> List[GateDecision]:
        return [GateDecision.from_error(error) for _ in range(count)]

    return fallback


class ClientBase:
    """Configuration and call builders shared by :class:`GateClient` and :class:`AsyncGateClient`."""

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
    ) -> None:
        if pool_size < 1:
            raise ValueError("pool_size must be ≥ 1")
        if timeout <= 0:
            raise ValueError("timeout must be positive (seconds)")
        if max_retries < 0:
            raise ValueError("max_retries must be ≥ 0")
        self.base_url = base_url or os.environ.get(ENV_BASE_URL) or DEFAULT_BASE_URL
        key = api_key if api_key is not None else os.environ.get(ENV_API_KEY)
        self.timeout = timeout
        self.raise_on_error = raise_on_error
        self.retry = RetryPolicy(max_retries=max_retries)
        self.pool_size = pool_size
        self._transport: Transport = transport if transport is not None else HTTPTransport(self.base_url, max_idle=pool_size)
        self._headers = headers_of(key or None, f"offload-gate-python/{__version__}")

    def __repr__(self) -> str:
        keyed = "with a key" if "authorization" in self._headers else "without a key"
        return f"<{type(self).__name__} {self.base_url} {keyed}, timeout={self.timeout:g}s>"

    def _fallback(self, call: Call[T], error: GateError, raise_on_error: Optional[bool]) -> T:
        """The call's safe default for ``error`` (logged), or the error itself when asked to raise."""
        if self.raise_on_error if raise_on_error is None else raise_on_error:
            raise error
        log.warning("offload-gate: %s did not answer (%s): %s; using the safe default", call.path, error.reason_code, error.message)
        return call.fallback(error)

    # --- the calls ---------------------------------------------------------

    @staticmethod
    def _decide_call(request: Any, fields: Mapping[str, Any]) -> Call[GateDecision]:
        body = as_request(GateRequest, request, **fields).to_json()
        return Call("/v1/gate", body, GateDecision.from_json, GateDecision.from_error)

    @staticmethod
    def _batch_calls(requests: Sequence[Any]) -> List[Call[List[GateDecision]]]:
        items = [r.to_json() for r in as_requests(GateRequest, requests)]
        return [
            Call(
                "/v1/gate/batch",
                {"items": list(chunk)},
                _decisions(len(chunk)),
                _fallbacks(len(chunk)),
            )
            for chunk in _chunks(items)
        ]

    @staticmethod
    def _plan_call(request: Any, fields: Mapping[str, Any]) -> Call[Plan]:
        return Call("/v1/plan", as_request(PlanRequest, request, **fields).to_json(), Plan.from_json, Plan.from_error)

    @staticmethod
    def _report_calls(path: str, cls: Any, items: Sequence[Any]) -> List[Call[Report]]:
        bodies = [item.to_json() for item in as_requests(cls, items)]
        return [Call(path, {"items": list(chunk)}, Report.from_json, Report.from_error) for chunk in _chunks(bodies)]

    @classmethod
    def _outcome_calls(cls, outcomes: Sequence[Any]) -> List[Call[Report]]:
        return cls._report_calls("/v1/outcomes", Outcome, outcomes)

    @classmethod
    def _session_calls(cls, sessions: Sequence[Any]) -> List[Call[Report]]:
        return cls._report_calls("/v1/sessions", SessionReport, sessions)


def merge_reports(reports: Sequence[Report]) -> Report:
    """One report from the chunks': results in order, up to the first chunk the gate did not take."""
    merged = Report()
    for report in reports:
        merged.results.extend(report.results)
        merged.accepted += report.accepted
        merged.unknown_decision += report.unknown_decision
        merged.conflict += report.conflict
        merged.invalid += report.invalid
        merged.extra.update(report.extra)
        if report.error is not None:
            merged.error = report.error
            break
    return merged
