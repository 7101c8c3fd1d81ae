/**
 * An offload session's outcome report, sent again for the decisions the
 * ledger had not seen yet.
 */
import type { OutcomeReport } from "./app-type.js";
import type { GateClient, GateReport } from "./client-types.js";
import type { Ledger } from "./session-ledger.js";

/**
 * Sends a session's outcomes (with retries) and its bill; every fault goes to
 * `onError`, nothing rejects.
 *
 * @example
 * const { outcomes, session } = await reportSession(gate, ledger, "conv-1", "claude-opus-4-6", console.error);
 */
export async function reportSession(
  gate: GateClient,
  ledger: Ledger,
  sessionId: string,
  model: string,
  onError: (error: unknown) => void,
) {
  let outcomes: GateReport | null = null;
  let session: GateReport | null = null;
  try {
    const items = ledger.outcomes();
    if (items.length > 0) outcomes = await reportWithRetry(gate, items);
    const bill = ledger.bill(sessionId, model);
    if (bill) session = await gate.reportSessions([bill]);
    else if (ledger.issues.length > 0)
      onError(new Error(`the session's bill was not sent, its usage could not be read: ${ledger.issues.join("; ")}`));
    for (const report of [outcomes, session]) if (report && !report.ok) onError(report.error);
  } catch (error) {
    onError(error);
  }
  return { outcomes, session };
}

/**
 * Reports outcomes, then sends again (a few times, backing off) those the
 * ledger answered `unknown_decision` for: the gate writes a decision after
 * answering, so an outcome sent right after may find it missing.
 *
 * @example
 * const report = await reportWithRetry(gate, [{ decision_id, turns_after: 3, recalled: false, cached_turns: 2 }]);
 */
export async function reportWithRetry(gate: GateClient, items: readonly OutcomeReport[]): Promise<GateReport> {
  let report = await gate.reportOutcomes(items);
  for (let attempt = 0; attempt < 10 && report.ok; attempt += 1) {
    const unknown = report.results.flatMap((result, i) =>
      (result as { status?: string }).status === "unknown_decision" ? [i] : [],
    );
    if (unknown.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
    const again = await gate.reportOutcomes(unknown.map((i) => items[i]!));
    if (!again.ok) return again;
    unknown.forEach((i, j) => (report.ok ? (report.results[i] = again.results[j]) : undefined));
    if (report.ok) {
      report.accepted += again.accepted;
      report.unknown_decision -= unknown.length - again.unknown_decision;
    }
  }
  return report;
}
