"""@module _session_books: an offload session's books, as the TypeScript
client's session-ledger.ts keeps them: the decisions and plans it holds, and
the outcomes they make. Pure: no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .models import Outcome, Report


@dataclass
class Held:
    """One tool output the session asked about."""

    tool_name: str
    decision_id: Optional[str]
    fire: bool
    #: The text the history holds instead of the output; None: the original.
    stub: Optional[str]
    turns_at: int
    cached_at: int
    #: Sent with the outcome of a seed-mode decision (cache-aware ones carried it).
    context_tokens: Optional[int]
    #: The original while it is kept in full (a plan may still stub it).
    original: Optional[str] = None
    recalled: bool = False


@dataclass
class HeldPlan:
    """A plan the gate answered with an id, the ids it stubbed, and which of them were recalled (in order)."""

    decision_id: str
    ids: List[str]
    turns_at: int
    cached_at: int
    recalled_ids: List[str] = field(default_factory=list)


@dataclass
class SessionSummary:
    """What ``end()`` returns: what was counted, and the gate's answers (None: nothing to send).
    ``usage_issues`` names each usage field that could not be read: while there is one,
    the bill is not sent (never a silent zero)."""

    session_id: str
    turns: int
    usage: Dict[str, int]
    decisions: int
    stubbed: int
    recalled: int
    outcomes: Optional[Report] = None
    session: Optional[Report] = None
    usage_issues: List[str] = field(default_factory=list)


def recall(held: Dict[str, Held], plans: List[HeldPlan], tool_call_id: str) -> None:
    """Marks a recall: on the decision when it fired, else on the plans that stubbed it."""
    decision = held.get(tool_call_id)
    if decision is not None and decision.fire:
        decision.recalled = True
    for plan in plans:
        if tool_call_id in plan.ids and tool_call_id not in plan.recalled_ids:
            plan.recalled_ids.append(tool_call_id)


def outcomes(held: Dict[str, Held], plans: List[HeldPlan], turns: int, cached: int) -> List[Outcome]:
    """One outcome per decision and plan the gate answered with an id."""
    decisions = [
        Outcome(h.decision_id, turns - h.turns_at, h.recalled, cached_turns=cached - h.cached_at, context_tokens=h.context_tokens)
        for h in held.values()
        if h.decision_id is not None
    ]
    planned = [
        Outcome(p.decision_id, turns - p.turns_at, bool(p.recalled_ids), cached_turns=cached - p.cached_at, recalled_ids=list(p.recalled_ids))
        for p in plans
    ]
    return decisions + planned


def summary(session_id: str, turns: int, usage: Dict[str, int], held: Dict[str, Held], plans: List[HeldPlan], issues: List[str]) -> SessionSummary:
    kept = list(held.values())
    return SessionSummary(
        session_id=session_id,
        turns=turns,
        usage=dict(usage),
        decisions=sum(1 for h in kept if h.decision_id is not None) + len(plans),
        stubbed=sum(1 for h in kept if h.stub is not None),
        recalled=sum(1 for h in kept if h.recalled) + sum(1 for p in plans if p.recalled_ids),
        usage_issues=list(issues),
    )
