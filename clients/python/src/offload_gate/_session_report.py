"""@module _session_report: an offload session's outcome report, sent again for
the decisions the ledger had not seen yet, as the TypeScript client's
session-report.ts: the gate writes a decision to the ledger after answering,
so an outcome sent at once may find it missing."""

from __future__ import annotations

import time
from typing import Any, List

from .models import Outcome, Report


def report_outcomes(gate: Any, outcomes: List[Outcome]) -> Report:
    """Reports the outcomes, then sends again (a few times, backing off) those answered ``unknown_decision``."""
    report = gate.report_outcomes(outcomes)
    for attempt in range(10):
        unknown = [i for i, result in enumerate(report.results) if result.status == "unknown_decision"]
        if not report.ok or not unknown:
            break
        time.sleep(0.1 * (attempt + 1))
        again = gate.report_outcomes([outcomes[i] for i in unknown])
        if not again.ok:
            return again
        for i, result in zip(unknown, again.results):
            report.results[i] = result
        report.accepted += again.accepted
        report.unknown_decision -= len(unknown) - again.unknown_decision
    return report
