"""@module _plan_cadence: when an offload session asks for a clearing plan, as
the TypeScript client's plan-cadence.ts. Every plan that stubs rewrites the
cached history after its first stub, so clearing many medium outputs one plan
at a time pays that rewrite again and again (a rolling mask that moves every
call costs +59% on cached transcripts; moving it every 10 calls, -0.1%). So:
at most once every K calls, or sooner once the stubbable tokens that arrived
since the last plan reach what the last paying plan stubbed, the batch the
plan itself reported as paying. Outputs a plan declined are weighed again at
the next K calls, not on every call. clients/constants.json's
``plan_cadence_vectors`` pin its answers, here, in the TypeScript client and in
replay's gate_plan.

>>> cadence = PlanCadence(2)
>>> cadence.due(40_000)
False
>>> cadence.call(); cadence.call(); cadence.due(40_000)
True
>>> cadence.asked(30_000); cadence.due(40_000), cadence.due(39_999)
(True, False)
"""

from __future__ import annotations

import math

from ._constants import DEFAULT_PLAN_EVERY

__all__ = ["DEFAULT_PLAN_EVERY", "PlanCadence"]


class PlanCadence:
    """One session's plan cadence."""

    def __init__(self, every: int = DEFAULT_PLAN_EVERY) -> None:
        self.every = every
        self._calls = 0
        self._paying = math.inf
        # The stubbable tokens when a plan was last due, and those that plan declined.
        self._seen = 0
        self._declined = 0

    def call(self) -> None:
        """One model call."""
        self._calls += 1

    def due(self, stubbable_tokens: int) -> bool:
        """Whether to ask now, with this many tokens of outputs held in full that a plan could stub."""
        fresh = stubbable_tokens - self._declined
        due = stubbable_tokens > 0 and (self._calls >= self.every or fresh >= self._paying)
        if due:
            self._seen = stubbable_tokens
        return due

    def asked(self, stubbed_tokens: int) -> None:
        """A plan was asked and stubbed this many tokens (0: it kept everything)."""
        self._calls = 0
        self._declined = max(0, self._seen - stubbed_tokens)
        if stubbed_tokens > 0:
            self._paying = stubbed_tokens
