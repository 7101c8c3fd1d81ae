/**
 * @module proxy/flush
 *
 * Reports an idle observed session to the ledger, as an agent reports its
 * own (docs/ledger.md § What agents send): one outcome per decision
 * (turns after, cached turns, recalled) and the session's bill, each
 * request's usage priced at its own size by the ledger's `requestsCost`
 * with the model's row. Both reports are idempotent, so an alarm that runs
 * twice repeats them harmlessly.
 */
import type { Indexed, OutcomeReport, PricedSession, SessionUsage } from "../ledger";
import { reportOutcomes, reportSessions, requestsCost } from "../ledger";
import type { Usage } from "../replay";
import { readGateConfig, readPricing } from "../storage";
import type { SessionState } from "./session-state";

type FlushEnv = Pick<Env, "LEDGER" | "PRICING">;

/**
 * A trace usage as the ledger's session usage.
 *
 * @example
 * ledgerUsage({ input: 3, cache_read: 900, cache_write_5m: 40, cache_write_1h: 60, output: 12 }).cache_creation_1h_input_tokens // 60
 */
export function ledgerUsage(usage: Usage): Required<SessionUsage> {
  return {
    input_tokens: usage.input,
    output_tokens: usage.output,
    cache_read_input_tokens: usage.cache_read,
    cache_creation_input_tokens: usage.cache_write_5m,
    cache_creation_1h_input_tokens: usage.cache_write_1h,
  };
}

function summed(requests: Required<SessionUsage>[]): Required<SessionUsage> {
  const total = ledgerUsage({ input: 0, cache_read: 0, cache_write_5m: 0, cache_write_1h: 0, output: 0 });
  for (const request of requests)
    for (const field of Object.keys(total) as (keyof SessionUsage)[]) total[field] += request[field];
  return total;
}

/**
 * Sends the session's outcomes and bill to its tenant's ledger. Throws when
 * the config or the ledger cannot be reached (the alarm is retried); a
 * model without a pricing row reports the outcomes and logs the bill it
 * could not price.
 *
 * @example
 * await reportSession(env, state);
 */
export async function reportSession(env: FlushEnv, state: SessionState): Promise<void> {
  const background: Promise<unknown>[] = [];
  const waitUntil = (promise: Promise<unknown>) => void background.push(promise.catch(() => undefined));
  const read = await readGateConfig(env.PRICING, waitUntil);
  if (!read.ok) throw new Error(`the gate config could not be read: ${read.detail}`);
  const config = read.config;
  const options = {
    shards: config.ledger_shards,
    timeoutMs: config.ledger_timeout_ms,
    rawDays: config.ledger_raw_days,
  };
  const now = Date.now();
  const outcomes: Indexed<OutcomeReport>[] = Object.values(state.decisions).map((tally, index) => ({
    index,
    item: {
      decision_id: tally.decision_id,
      turns_after: tally.turns_after,
      // A decision that did not fire placed no stub: its outcome says no recall at either end, as the
      // ledger requires; the evidence is only ever counted over fired decisions (docs/api/ledger.md).
      recalled: tally.fired !== false && tally.recalled,
      recalled_high: tally.fired !== false && (tally.recalled_high ?? tally.recalled),
      cached_turns: tally.cached_turns,
    },
  }));
  if (outcomes.length > 0) await reportOutcomes(env.LEDGER, state.tenant, now, options, outcomes);
  if (state.usages.length > 0) {
    const { lookup } = await readPricing(env.PRICING, state.model, config, waitUntil);
    if (lookup.status === "unavailable") throw new Error(`the pricing of ${state.model} could not be read`);
    if (lookup.status !== "priced") {
      console.warn(
        `offload-gate: proxy: the session's model ${JSON.stringify(state.model)} has no pricing row; its bill is not reported`,
      );
    } else {
      const requests = state.usages.map(ledgerUsage);
      const usage = summed(requests);
      const session: PricedSession = {
        session_id: state.ledger_session,
        model_name: state.model,
        priced_as: lookup.canonical,
        turns: requests.length,
        usage,
        cost_usd: requestsCost(lookup.row, requests),
        // The content in a fixed order: an alarm that runs again repeats it exactly.
        report: JSON.stringify(["proxy", state.ledger_session, state.model, requests.map((r) => Object.values(r))]),
      };
      await reportSessions(
        env.LEDGER,
        state.tenant,
        now,
        { ...options, retentionDays: config.ledger_retention_days, index: env.PRICING },
        [{ index: 0, item: session }],
      );
    }
  }
  await Promise.all(background);
}
