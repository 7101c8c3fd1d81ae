"""An offload session: one per conversation, the bookkeeping an agent would
otherwise do by hand. It asks the gate once per large tool output, writes the
stub and keeps the original, replays every decision byte for byte, asks for a
clearing plan at its cadence, counts turns and cache hits after each
decision, and at the end reports every outcome and the session's bill.
Nothing in it raises into the agent's loop.

Example::

    from offload_gate import GateClient, OffloadSession

    session = OffloadSession(GateClient(), "claude-opus-4-6", log="session.jsonl")
    text = session.offload(call_id, "web_fetch", page)   # the original or its stub
    session.observe(response.usage)                      # after every model call
    original = session.recall(call_id)                   # what the recall tool answers
    summary = session.end()                              # outcomes and the bill, reported
"""

from __future__ import annotations

import logging
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, MutableMapping, Optional, Protocol, Sequence

from . import _session_books as books
from ._constants import DEFAULT_MIN_CHARS, RECALL_TOOL_NAME, SESSION_ID_PREFIX
from ._plan_cadence import DEFAULT_PLAN_EVERY, PlanCadence
from ._session_books import Held, HeldPlan, SessionSummary
from ._session_log import SessionLog
from ._session_report import report_outcomes
from ._stub import default_stub, tool_name_for_gate
from ._tokens import TokenMeter
from ._usage import USAGE_KEYS, billed_usage, field_of, read_usage
from .client import GateClient
from .models import SessionReport

__all__ = ["DEFAULT_MIN_CHARS", "DEFAULT_PLAN_EVERY", "RECALL_TOOL_NAME", "OffloadSession", "PlanCadence", "RecallStore", "SessionSummary", "default_stub"]

log = logging.getLogger("offload_gate")


class RecallStore(Protocol):
    """Where the originals behind the stubs are kept: a dict will do, or anything with ``get`` and ``__setitem__``."""

    def get(self, key: str, default: Any = None) -> Optional[str]: ...

    def __setitem__(self, key: str, value: str) -> None: ...


@dataclass
class OffloadSession:
    """One conversation's offloading, framework-free; safe to share between threads.

    ``request`` holds extra gate fields for every decision (``horizon``,
    ``recall_probability``, ``pricing_mode="seed"``, ...); ``store`` the
    originals (a dict by default); ``stub`` the stub text, a pure function of
    ``(id, tool_name, chars, recall_tool_name)``; ``plan_every`` K, the calls
    between two clearing plans; ``log`` an opt-in session log for replay (a
    path, appended to, or anything with ``write``).
    """

    gate: GateClient
    model: str
    session_id: Optional[str] = None
    store: Optional[MutableMapping[str, str]] = None
    min_chars: int = DEFAULT_MIN_CHARS
    request: Mapping[str, Any] = field(default_factory=dict)
    recall_tool_name: str = RECALL_TOOL_NAME
    stub: Callable[[str, str, int, str], str] = default_stub
    plan_every: int = DEFAULT_PLAN_EVERY
    log: Any = None
    _held: Dict[str, Held] = field(default_factory=dict, init=False, repr=False)
    _plans: List[HeldPlan] = field(default_factory=list, init=False, repr=False)
    _usage: Dict[str, int] = field(default_factory=lambda: dict.fromkeys(USAGE_KEYS, 0), init=False, repr=False)
    _written_1h: int = field(default=0, init=False, repr=False)
    _issues: List[str] = field(default_factory=list, init=False, repr=False)
    _turns: int = field(default=0, init=False, repr=False)
    _cached: int = field(default=0, init=False, repr=False)
    _context: int = field(default=0, init=False, repr=False)
    # The bill's covariate (POST /v1/sessions): the history at the first gate call times the later calls
    # that missed the cache; the gate's decisions change neither.
    _first_context: Optional[int] = field(default=None, init=False, repr=False)
    _misses: int = field(default=0, init=False, repr=False)
    _summary: Optional[SessionSummary] = field(default=None, init=False, repr=False)
    _meter: Any = field(default=None, init=False, repr=False)
    _cadence: Any = field(default=None, init=False, repr=False)
    _log: Optional[SessionLog] = field(default=None, init=False, repr=False)
    _lock: Any = field(default_factory=threading.RLock, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.session_id is None:
            self.session_id = f"{SESSION_ID_PREFIX}{uuid.uuid4()}"
        if self.store is None:
            self.store = {}
        self._meter = TokenMeter(self.model)
        self._cadence = PlanCadence(self.plan_every)
        self._log = None if self.log is None else SessionLog(self.log, str(self.session_id), self.model)

    @property
    def ended(self) -> bool:
        return self._summary is not None

    def offload(self, tool_call_id: str, tool_name: str, output: str) -> str:
        """The text the history should hold for a tool output: the original, or
        its stub when the gate fired. Asked once per id; replayed after that."""
        with self._lock:
            text = self._offload(tool_call_id, tool_name, output)
            if self._log is not None and not self._log.seen(tool_call_id):
                self._log.output(tool_call_id, tool_name, text)
            return text

    def _offload(self, tool_call_id: str, tool_name: str, output: str) -> str:
        held = self._held.get(tool_call_id)
        if held is not None:
            return held.stub if held.stub is not None else output
        self._meter.added(tool_call_id, len(output))
        if self.ended or len(output) < self.min_chars or tool_name == self.recall_tool_name:
            return output
        try:
            held = self._decide(tool_call_id, tool_name, output)
        except Exception:  # never into the agent's loop
            log.warning("offload-gate: deciding %s failed; keeping the output", tool_call_id, exc_info=True)
            return output
        self._held[tool_call_id] = held
        return held.stub if held.stub is not None else output

    def stub_for(self, tool_call_id: str) -> Optional[str]:
        """The stub the history holds for a tool call, if it was offloaded (by the gate or a plan)."""
        held = self._held.get(tool_call_id)
        return None if held is None else held.stub

    def status(self, tool_call_id: str) -> Optional[str]:
        """``"stubbed"``, ``"kept"``, or None for an id the session never asked about."""
        held = self._held.get(tool_call_id)
        return None if held is None else ("kept" if held.stub is None else "stubbed")

    def recall(self, tool_call_id: str) -> str:
        """What the recall tool answers for ``{"id": ...}``: the original, and the decision (or plan) marked recalled."""
        with self._lock:
            held = self._held.get(tool_call_id)
            text = None
            if held is not None and held.stub is not None:
                try:
                    text = self.store.get(tool_call_id)  # type: ignore[union-attr]
                except Exception:
                    log.warning("offload-gate: the recall store could not read %s", tool_call_id, exc_info=True)
                    return f'the offloaded output "{tool_call_id}" could not be read'
            if held is None or text is None:
                return f'no offloaded output has id "{tool_call_id}"'
            books.recall(self._held, self._plans, tool_call_id)
            return text

    def observe(self, usage: Any, turn: bool = True) -> None:
        """Counts one model call: a turn for every open decision (a cached turn when
        it read the cache), and its tokens on the bill, 1-hour writes
        (``cache_creation.ephemeral_1h_input_tokens``) at the 1-hour rate. ``usage``
        is a mapping or an object with Anthropic's usage fields (``input_tokens``
        without cache reads). With ``turn=False`` the tokens go on the bill only
        (usage a counted call did not report at the time). A field that cannot be
        read is named in ``end().usage_issues``, and the bill is then not sent."""
        counted, written_1h, issues = read_usage(usage, turn)
        with self._lock:
            if self.ended:
                return
            for key in USAGE_KEYS:
                self._usage[key] += counted[key]
            self._written_1h += written_1h
            self._issues += [f"call {self._turns + (1 if turn else 0)}: {issue}" for issue in issues]
            if not turn:
                if self._log is not None:
                    self._log.late(counted, written_1h)
                return
            if self._first_context is not None and self._turns > 0 and counted["cache_read_input_tokens"] == 0:
                self._misses += 1
            self._turns += 1
            if counted["cache_read_input_tokens"] > 0:
                self._cached += 1
            self._context = sum(counted.values())
            self._meter.observe(counted)
            self._cadence.call()
            if self._log is not None:
                self._log.call(counted, written_1h)

    def tokens_for(self, text: str) -> int:
        """A text's size in real tokens, at the family's factor as this session learned it."""
        return self._meter.tokens(len(text))

    def plan_due(self, stubbable_tokens: int) -> bool:
        """Whether a plan is due for this many stubbable tokens (at most once every ``plan_every`` calls,
        or once they reach the batch the last paying plan stubbed)."""
        return not self.ended and self._cadence.due(stubbable_tokens)

    def plan(self, segments: Sequence[Any], **request: Any) -> List[str]:
        """Asks ``POST /v1/plan`` which already-sent outputs to stub now (the candidates
        are the segments, ``{"tokens": n}`` or ``{"id": ..., "tokens": n}``, whose id
        this session kept in full), and stubs all of them from then on: one rewrite
        of the cached history. Returns the ids stubbed; never undoes a stub."""
        with self._lock:
            if self.ended:
                return []
            sent = [self._segment(s) for s in segments]
            if not any("id" in s for s in sent):
                return []
            turns_at, cached_at = self._turns, self._cached
            self._first_context = self._context if self._first_context is None else self._first_context
            try:
                answer = self.gate.plan(**{**request, "model_name": self.model, "session_id": self.session_id, "segments": sent})
            except Exception:
                log.warning("offload-gate: the plan failed; stubbing nothing", exc_info=True)
                return []
            sizes = {s["id"]: s["tokens"] for s in sent if "id" in s}
            self._cadence.asked(sum(sizes.get(i, 0) for i in answer.stub))
            stubbed = [i for i in answer.stub if self._stub_planned(i)]
            if not answer.fallback and answer.decision_id is not None:
                self._plans.append(HeldPlan(answer.decision_id, stubbed, turns_at, cached_at))
            return stubbed

    def _segment(self, segment: Any) -> Dict[str, Any]:
        tokens, id = int(field_of(segment, "tokens") or 0), field_of(segment, "id")
        held = None if id is None else self._held.get(id)
        open_ = held is not None and held.stub is None and held.original is not None
        return {"id": id, "tokens": tokens} if open_ else {"tokens": tokens}

    def _stub_planned(self, tool_call_id: str) -> bool:
        held = self._held.get(tool_call_id)
        original = None if held is None else held.original
        if held is None or original is None or not self._keep(tool_call_id, original):
            return False
        held.stub = self.stub(tool_call_id, held.tool_name, len(original), self.recall_tool_name)
        held.original = None
        if self._log is not None:
            self._log.output(tool_call_id, held.tool_name, held.stub)
        return True

    def end(self) -> SessionSummary:
        """Reports every decision's outcome (100 a call) and the session's bill, once;
        later calls return the same summary. Never raises."""
        with self._lock:
            if self._summary is not None:
                return self._summary
            summary = books.summary(str(self.session_id), self._turns, self._usage, self._held, self._plans, self._issues)
            self._summary = summary
            outcomes = books.outcomes(self._held, self._plans, self._turns, self._cached)
            if self._log is not None:
                self._log.flush()
        try:
            if outcomes:
                summary.outcomes = report_outcomes(self.gate, outcomes)
            if summary.usage_issues:
                log.warning("offload-gate: the session's bill was not sent, its usage could not be read: %s", "; ".join(summary.usage_issues))
            elif self._turns > 0:
                covariate = None if self._first_context is None else self._first_context * self._misses
                bill = SessionReport(str(self.session_id), self.model, self._turns, billed_usage(self._usage, self._written_1h), covariate=covariate)
                summary.session = self.gate.report_sessions([bill])
        except Exception:
            log.warning("offload-gate: reporting the session failed", exc_info=True)
        return summary

    def _decide(self, tool_call_id: str, tool_name: str, output: str) -> Held:
        stub = self.stub(tool_call_id, tool_name, len(output), self.recall_tool_name)
        seed = self.request.get("pricing_mode", "cache_aware") == "seed"
        # Real tokens (the family's factor, as this session learned it): chars / 4 undercounts them by 7-40%.
        tokens = self._meter.tokens(len(output))
        fields: Dict[str, Any] = {"output_tokens": tokens, "recall_input_tokens": tokens, **self.request}
        fields.update(
            pricing_mode="seed" if seed else "cache_aware",
            model_name=self.model,
            stub_tokens=self._meter.tokens(len(stub)),
            session_id=self.session_id,
            tool_name=tool_name_for_gate(tool_name),
        )
        if not seed:
            fields["context_tokens"] = self._context
        self._first_context = self._context if self._first_context is None else self._first_context
        decision = self.gate.decide(**fields)
        fire = decision.fire and self._keep(tool_call_id, output)
        return Held(
            tool_name=tool_name,
            decision_id=None if decision.fallback else decision.decision_id,
            fire=fire,
            stub=stub if fire else None,
            turns_at=self._turns,
            cached_at=self._cached,
            context_tokens=self._context if seed else None,
            # Kept in full, a later plan may still stub it.
            original=None if fire else output,
        )

    def _keep(self, tool_call_id: str, output: str) -> bool:
        """Stores the original before its stub goes out; a store that fails means no stub."""
        try:
            self.store[tool_call_id] = output  # type: ignore[index]
            return True
        except Exception:
            log.warning("offload-gate: the recall store could not keep %s; keeping the output", tool_call_id, exc_info=True)
            return False
