/**
 * @module proxy/enforce/report
 *
 * Reports an idle enforced session's decisions to the ledger, as an agent
 * reports its own (docs/ledger.md § What agents send): per decision, the
 * requests that carried the output after it, and whether the model
 * recalled it, counted exactly (the proxy resolved every recall). The bill
 * is the observed session's (docs/design/proxy.md §7), under the same
 * ledger session. Idempotent: an alarm that runs twice repeats it harmlessly.
 */
import { type Indexed, type OutcomeReport, reportOutcomes } from "../../ledger";
import { readGateConfig } from "../../storage";

/**
 * Sends the outcomes to the tenant's ledger; throws when the config or the
 * ledger cannot be reached (the alarm is retried).
 *
 * @example
 * await reportEnforced(env, "agents-prod", [{ decision_id: "dec_1_…", turns_after: 4, recalled: true }]);
 */
export async function reportEnforced(
  env: Pick<Env, "LEDGER" | "PRICING">,
  tenant: string,
  outcomes: { decision_id: string; turns_after: number; recalled: boolean }[],
): Promise<void> {
  const background: Promise<unknown>[] = [];
  const read = await readGateConfig(env.PRICING, (promise) => void background.push(promise.catch(() => undefined)));
  if (!read.ok) throw new Error(`the gate config could not be read: ${read.detail}`);
  const { config } = read;
  const items: Indexed<OutcomeReport>[] = outcomes.map((outcome, index) => ({ index, item: outcome }));
  await reportOutcomes(
    env.LEDGER,
    tenant,
    Date.now(),
    { shards: config.ledger_shards, timeoutMs: config.ledger_timeout_ms, rawDays: config.ledger_raw_days },
    items,
  );
  await Promise.all(background);
}
