import type { ClearingOutcome } from "./clearing";
import type { PlanOutcome } from "./plan-outcome";
import type { GateOutcome } from "./types";

/** A decision answered in the holdout: what the gate would have said, kept beside the no-fire it says. */
export interface HeldOutcome extends GateOutcome {
  would_fire?: boolean;
}

/**
 * The answer for a decision whose session is in the holdout: `fire: false`,
 * `reason_code: "holdout"` and `would_fire` with the verdict it would have
 * given; the priced terms and break-evens unchanged. Only priced decisions
 * are held out: one that was never priced (below the threshold, unpriced,
 * pricing unavailable) does not fire anyway, and keeps its own reason.
 *
 * @example
 * holdOut(decideOutcome("seed", inputs, lookup))
 * // { fire: false, reason_code: "holdout", would_fire: true, net_saving_usd: 0.389…, reason: "holdout: would fire; net=$0.3893 (…)" }
 */
export function holdOut(outcome: GateOutcome): HeldOutcome {
  if (outcome.reason_code !== "net_positive" && outcome.reason_code !== "net_not_positive") return outcome;
  return {
    ...outcome,
    fire: false,
    reason: `holdout: would ${outcome.fire ? "fire" : "not fire"}; ${outcome.reason}`,
    reason_code: "holdout",
    would_fire: outcome.fire,
  };
}

/**
 * The answer for a decision about a tool whose breaker is open
 * (docs/design/learning.md §4.3): `fire: false`, `reason_code: "breaker_open"` and
 * `would_fire`, the priced terms unchanged, as the holdout answers. A
 * decision that was never priced keeps its own reason.
 *
 * @example
 * breakerOpen(decideOutcome("seed", inputs, lookup))
 * // { fire: false, reason_code: "breaker_open", would_fire: true, reason: "breaker open: would fire; net=$0.3893 (…)" }
 */
export function breakerOpen(outcome: GateOutcome): HeldOutcome {
  if (outcome.reason_code !== "net_positive" && outcome.reason_code !== "net_not_positive") return outcome;
  return {
    ...outcome,
    fire: false,
    reason: `breaker open: would ${outcome.fire ? "fire" : "not fire"}; ${outcome.reason}`,
    reason_code: "breaker_open",
    would_fire: outcome.fire,
  };
}

/** A clearing plan answered in the holdout: what it would have stubbed, kept beside the nothing it stubs. */
export interface HeldPlan extends PlanOutcome {
  would_stub?: string[];
  would_net_saving_usd?: number;
}

/**
 * The plan for a session in the holdout: nothing stubbed
 * (`reason_code: "holdout"`), so `net_saving_usd: 0`; `would_stub` and
 * `would_net_saving_usd` with what the plan would have stubbed and saved,
 * its other terms unchanged. A plan that was never priced keeps its own
 * reason, as a gate decision does.
 *
 * @example
 * holdOutPlan(decidePlan(P1, lookup)) // { stub: [], would_stub: ["c1", "c2", "c3"], reason_code: "holdout", net_saving_usd: 0, would_net_saving_usd: 0.2773, ... }
 */
export function holdOutPlan(outcome: PlanOutcome): HeldPlan {
  if (outcome.reason_code !== "plan_positive" && outcome.reason_code !== "plan_not_positive") return outcome;
  return {
    ...outcome,
    stub: [],
    candidates: outcome.candidates.map((candidate) => ({ ...candidate, stubbed: false })),
    reason: `holdout: would stub ${outcome.stub.length}; ${outcome.reason}`,
    reason_code: "holdout",
    net_saving_usd: 0,
    would_stub: outcome.stub,
    would_net_saving_usd: outcome.net_saving_usd,
  };
}

/**
 * The clearing answer for a session in the holdout: no edit to send
 * (`context_management: null`, `reason_code: "holdout"`), so nothing is
 * left to the server-side rule's credit; `edit`, `cleared` and `net_usd` still
 * say what it would have sent and saved. An answer never priced keeps its own reason.
 *
 * @example
 * holdOutClearing(decideClearing(P1_WITH_TOOLS, lookup)) // { context_management: null, reason_code: "holdout", net_usd: 0.2791, ... }
 */
export function holdOutClearing(outcome: ClearingOutcome): ClearingOutcome {
  if (outcome.reason_code !== "clear_positive" && outcome.reason_code !== "clear_not_positive") return outcome;
  return {
    ...outcome,
    context_management: null,
    left_on_table_usd: outcome.plan.net_saving_usd,
    reason: `holdout: would ${outcome.context_management === null ? "send no edit" : "clear"}; ${outcome.reason}`,
    reason_code: "holdout",
  };
}
