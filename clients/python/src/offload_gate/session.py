"""An offload session: one per conversation, the bookkeeping an agent would
otherwise do by hand. It asks the gate once per large tool output, writes the
stub and keeps the original, replays every decision byte for byte, counts
turns and cache hits after each decision, and at the end reports every
outcome and the session's bill. Nothing in it raises into the agent's loop.

Example::

    from offload_gate import GateClient, OffloadSession

    session = OffloadSession(GateClient(), "claude-opus-4-6")
    text = session.offload(call_id, "web_fetch", page)   # the original or its stub
    session.observe(response.usage)                      # after every model call
    original = session.recall(call_id)                   # what the recall tool answers
    summary = session.end()                              # outcomes and the bill, reported
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, MutableMapping, Optional, Protocol

from ._constants import DEFAULT_MIN_CHARS, RECALL_TOOL_NAME, SESSION_ID_PREFIX, STUB_TEMPLATE
from ._tokens import TokenMeter
from .client import GateClient
from .models import Outcome, Report, SessionReport

log = logging.getLogger("offload_gate")

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


class RecallStore(Protocol):
    """Where the originals behind the stubs are kept: a dict will do, or anything with ``get`` and ``__setitem__``."""

    def get(self, key: str, default: Any = None) -> Optional[str]: ...

    def __setitem__(self, key: str, value: str) -> None: ...


def default_stub(id: str, tool_name: str, chars: int, recall_tool_name: str) -> str:
    """The default stub, byte-identical to the TypeScript client's.

    >>> default_stub("call_1", "web_fetch", 160000, "recall_tool_output")
    '[offloaded: the output of web_fetch call call_1 (160,000 chars) is not shown; call recall_tool_output with {"id":"call_1"} to read it]'
    """
    shown = json.dumps({"id": id}, separators=(",", ":"), ensure_ascii=False)
    values = {"tool_name": tool_name, "id": id, "chars": f"{chars:,}", "recall_tool_name": recall_tool_name, "id_json": shown}
    # One pass over the template: a value that looks like a placeholder stays as it is.
    return re.sub(r"\{([a-z_]+)\}", lambda m: values.get(m.group(1), m.group(0)), STUB_TEMPLATE)


@dataclass
class _Held:
    tool_name: str
    decision_id: Optional[str]
    fire: bool
    stub: Optional[str]
    turns_at: int
    cached_at: int
    context_tokens: Optional[int]
    recalled: bool = False


@dataclass
class SessionSummary:
    """What ``end()`` returns: what was counted, and the gate's answers (None: nothing to send)."""

    session_id: str
    turns: int
    usage: Dict[str, int]
    decisions: int
    stubbed: int
    recalled: int
    outcomes: Optional[Report] = None
    session: Optional[Report] = None


@dataclass
class OffloadSession:
    """One conversation's offloading, framework-free; safe to share between threads.

    ``request`` holds extra gate fields for every decision (``horizon``,
    ``recall_probability``, ``pricing_mode="seed"``, ...); ``store`` the
    originals (a dict by default); ``stub`` the stub text, a pure function of
    ``(id, tool_name, chars, recall_tool_name)``.
    """

    gate: GateClient
    model: str
    session_id: Optional[str] = None
    store: Optional[MutableMapping[str, str]] = None
    min_chars: int = DEFAULT_MIN_CHARS
    request: Mapping[str, Any] = field(default_factory=dict)
    recall_tool_name: str = RECALL_TOOL_NAME
    stub: Callable[[str, str, int, str], str] = default_stub
    _held: Dict[str, _Held] = field(default_factory=dict, init=False, repr=False)
    _usage: Dict[str, int] = field(default_factory=lambda: dict.fromkeys(USAGE_KEYS, 0), init=False, repr=False)
    _turns: int = field(default=0, init=False, repr=False)
    _cached: int = field(default=0, init=False, repr=False)
    _context: int = field(default=0, init=False, repr=False)
    _summary: Optional[SessionSummary] = field(default=None, init=False, repr=False)
    _meter: Any = field(default=None, init=False, repr=False)
    _lock: Any = field(default_factory=threading.RLock, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.session_id is None:
            self.session_id = f"{SESSION_ID_PREFIX}{uuid.uuid4()}"
        if self.store is None:
            self.store = {}
        self._meter = TokenMeter(self.model)

    @property
    def ended(self) -> bool:
        return self._summary is not None

    def offload(self, tool_call_id: str, tool_name: str, output: str) -> str:
        """The text the history should hold for a tool output: the original, or
        its stub when the gate fired. Asked once per id; replayed after that."""
        with self._lock:
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

    def status(self, tool_call_id: str) -> Optional[str]:
        """``"stubbed"``, ``"kept"``, or None for an id the session never asked about."""
        held = self._held.get(tool_call_id)
        return None if held is None else ("kept" if held.stub is None else "stubbed")

    def recall(self, tool_call_id: str) -> str:
        """What the recall tool answers for ``{"id": ...}``: the original, and the decision marked recalled."""
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
            held.recalled = True
            return text

    def observe(self, usage: Any, turn: bool = True) -> None:
        """Counts one model call: a turn for every open decision (a cached turn when
        it read the cache), and its tokens on the bill. ``usage`` is a mapping or an
        object with Anthropic's usage fields (``input_tokens`` without cache reads).
        With ``turn=False`` the tokens go on the bill only (usage a counted call did
        not report at the time)."""
        counted = {key: _tokens(usage.get(key) if isinstance(usage, Mapping) else getattr(usage, key, None)) for key in USAGE_KEYS}
        with self._lock:
            if self.ended:
                return
            for key in USAGE_KEYS:
                self._usage[key] += counted[key]
            if not turn:
                return
            self._turns += 1
            if counted["cache_read_input_tokens"] > 0:
                self._cached += 1
            self._context = sum(counted.values())
            self._meter.observe(counted)

    def end(self) -> SessionSummary:
        """Reports every decision's outcome (100 a call) and the session's bill, once;
        later calls return the same summary. Never raises."""
        with self._lock:
            if self._summary is not None:
                return self._summary
            held = list(self._held.values())
            summary = SessionSummary(
                session_id=str(self.session_id),
                turns=self._turns,
                usage=dict(self._usage),
                decisions=sum(1 for h in held if h.decision_id is not None),
                stubbed=sum(1 for h in held if h.stub is not None),
                recalled=sum(1 for h in held if h.recalled),
            )
            self._summary = summary
        try:
            outcomes = [
                Outcome(h.decision_id, self._turns - h.turns_at, h.recalled, cached_turns=self._cached - h.cached_at, context_tokens=h.context_tokens)
                for h in held
                if h.decision_id is not None
            ]
            if outcomes:
                summary.outcomes = self._report_outcomes(outcomes)
            if self._turns > 0:
                bill = SessionReport(str(self.session_id), self.model, self._turns, dict(self._usage))
                summary.session = self.gate.report_sessions([bill])
        except Exception:
            log.warning("offload-gate: reporting the session failed", exc_info=True)
        return summary

    def _decide(self, tool_call_id: str, tool_name: str, output: str) -> _Held:
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
            tool_name=_tool_name_for_gate(tool_name),
        )
        if not seed:
            fields["context_tokens"] = self._context
        decision = self.gate.decide(**fields)
        fire = decision.fire and self._keep(tool_call_id, output)
        return _Held(
            tool_name=tool_name,
            decision_id=None if decision.fallback else decision.decision_id,
            fire=fire,
            stub=stub if fire else None,
            turns_at=self._turns,
            cached_at=self._cached,
            context_tokens=self._context if seed else None,
        )

    def _keep(self, tool_call_id: str, output: str) -> bool:
        """Stores the original before its stub goes out; a store that fails means no stub."""
        try:
            self.store[tool_call_id] = output  # type: ignore[index]
            return True
        except Exception:
            log.warning("offload-gate: the recall store could not keep %s; keeping the output", tool_call_id, exc_info=True)
            return False

    def _report_outcomes(self, outcomes: List[Outcome]) -> Report:
        """The gate writes a decision to the ledger after answering: an outcome sent
        at once may find it missing, so those are sent again a few times."""
        report = self.gate.report_outcomes(outcomes)
        for attempt in range(10):
            unknown = [i for i, result in enumerate(report.results) if result.status == "unknown_decision"]
            if not report.ok or not unknown:
                break
            time.sleep(0.1 * (attempt + 1))
            again = self.gate.report_outcomes([outcomes[i] for i in unknown])
            if not again.ok:
                return again
            for i, result in zip(unknown, again.results):
                report.results[i] = result
            report.accepted += again.accepted
            report.unknown_decision -= len(unknown) - again.unknown_decision
        return report


def _tokens(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0 else 0


def _tool_name_for_gate(name: str) -> str:
    """A framework's tool name as the gate takes it: ``[A-Za-z0-9._:/-]{1,64}``."""
    return re.sub(r"[^A-Za-z0-9._:/-]", "_", name)[:64] or "tool"
