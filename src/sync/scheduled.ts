/**
 * The scheduled price sync: fetch the source named in `config:gate`, compare
 * it with KV, store the differences as pending changes. It never writes a
 * pricing row: an admin approves each change (see routes/admin/pending.ts).
 */

import { listValues } from "../storage";
import { ALIAS_PREFIX, GATE_CONFIG_KEY, PRICING_PREFIX } from "../storage/rules";
import type { PricingRow } from "../storage/schemas";
import { parseGateConfig, parseRow } from "../storage/schemas";
import { diffSource, type KvPricing, type SkippedEntry, trackedProviders } from "./diff";
import { listPending, storeProposals } from "./pending";
import { fetchSource, parseSource } from "./source";

/** What one run did, for the log and for tests. */
export type SyncReport =
  | { status: "disabled"; detail: string }
  | { status: "failed"; detail: string }
  | {
      status: "done";
      source: string;
      proposed: number;
      written: string[];
      unchanged: string[];
      deleted: string[];
      skipped: SkippedEntry[];
    };

/** How many skipped entries the log line names; the report holds them all. */
const LOGGED_SKIPS = 20;

/**
 * One sync run. Every failure (no config, a failed fetch, an oversized,
 * malformed or hostile file) is logged and ends the run before any write.
 *
 * @example
 * const report = await runPriceSync(env.PRICING, new Date(), fetch);
 */
export async function runPriceSync(kv: KVNamespace, now: Date, fetcher: typeof fetch): Promise<SyncReport> {
  const config = parseGateConfig(await kv.get(GATE_CONFIG_KEY));
  if (!config.ok) return logged({ status: "failed", detail: config.detail });
  const url = config.config.price_source_url;
  if (url === null) return logged({ status: "disabled", detail: "config:gate names no price_source_url" });

  const fetched = await fetchSource(url, fetcher);
  if (!fetched.ok) return logged({ status: "failed", detail: fetched.detail });
  const parsed = parseSource(fetched.text);
  if (!parsed.ok) return logged({ status: "failed", detail: `${url}: ${parsed.detail}` });

  const [pricing, stored] = await Promise.all([readKvPricing(kv), listPending(kv)]);
  const providers = trackedProviders(pricing, config.config.price_source_providers ?? undefined);
  const diff = diffSource(parsed.entries, pricing, providers, url, now.getTime());
  if (!diff.ok) return logged({ status: "failed", detail: `${url}: ${diff.detail}` });

  const outcome = await storeProposals(kv, diff.changes, stored, url, now.toISOString());
  return logged({ status: "done", source: url, proposed: diff.changes.length, ...outcome, skipped: diff.skipped });
}

async function readKvPricing(kv: KVNamespace): Promise<KvPricing> {
  const [rowTexts, aliasTexts] = await Promise.all([listValues(kv, PRICING_PREFIX), listValues(kv, ALIAS_PREFIX)]);
  const rows = new Map<string, PricingRow>();
  for (const [model, text] of rowTexts) {
    const parsed = parseRow(model, text);
    // A corrupt row is the admin API's to show; the sync proposes nothing for it.
    if (parsed.kind === "row") rows.set(model, parsed.row);
  }
  return { rows, aliases: new Map([...aliasTexts].map(([alias, target]) => [alias, target.trim()])) };
}

function logged(report: SyncReport): SyncReport {
  if (report.status === "failed") console.error(`offload-gate price sync failed: ${report.detail}`);
  else if (report.status === "disabled") console.log(`offload-gate price sync: ${report.detail}`);
  else {
    console.log(
      `offload-gate price sync: ${report.proposed} change(s) from ${report.source}; ${report.written.length} stored, ${report.deleted.length} withdrawn`,
    );
    if (report.skipped.length > 0) {
      const named = report.skipped.slice(0, LOGGED_SKIPS).map(({ model, reason }) => `${model}: ${reason}`);
      const more = report.skipped.length > LOGGED_SKIPS ? `; and ${report.skipped.length - LOGGED_SKIPS} more` : "";
      console.warn(
        `offload-gate price sync skipped ${report.skipped.length} source entr${report.skipped.length === 1 ? "y" : "ies"} that cannot become a valid row: ${named.join("; ")}${more}`,
      );
    }
  }
  return report;
}

/**
 * The Worker's `scheduled` handler: one sync per Cron Trigger, its clock
 * the trigger's scheduled time.
 *
 * @example
 * export default Object.assign(app, { scheduled });
 */
export async function scheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
  ctx.waitUntil(runPriceSync(env.PRICING, new Date(controller.scheduledTime), fetch));
}
