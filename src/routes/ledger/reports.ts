import { createRoute, type z } from "@hono/zod-openapi";
import { enforceRateLimit, GATE_SECURITY, OPEN_TENANT } from "../../auth";
import type { CachePriceRates } from "../../gate";
import { fieldIssues } from "../../gate";
import { ApiError, type ErrorIssue, summarize, waitUntilOf } from "../../http";
import {
  checkDecisionId,
  type Indexed,
  type ItemResult,
  type OutcomeReport,
  type PricedSession,
  reportOutcomes,
  reportSessions,
  requestsCost,
  sessionCost,
} from "../../ledger";
import { readGateConfig, readPricing } from "../../storage";
import { ambiguityIssue } from "../kernel";
import { bodyErrors, CALLER_ERRORS, createApp, ErrorSchema, json, jsonRequest } from "../kernel/openapi";
import {
  type ItemResultSchema,
  MAX_REPORT_ITEMS,
  OutcomeItemSchema,
  ReportResponseSchema,
  reportRequestSchema,
  SessionItemSchema,
} from "./schema";
import { sumUsage, USAGE_COMPONENTS } from "./usage";

const commonErrors = {
  ...bodyErrors(`The body is not JSON, is not {"items": [...]}, or holds more than ${MAX_REPORT_ITEMS} items`),
  ...CALLER_ERRORS,
  503: json(
    ErrorSchema,
    "The ledger (or the pricing it needs) could not be reached; every report is idempotent, so retry it whole",
  ),
};

export const outcomesRoute = createRoute({
  method: "post",
  path: "/v1/outcomes",
  summary: "Report what happened after up to 100 decisions",
  tags: ["ledger"],
  security: GATE_SECURITY,
  request: jsonRequest(reportRequestSchema("OutcomesRequest", "OutcomeReport")),
  responses: {
    200: json(ReportResponseSchema, "One result per item, in order: accepted, unknown_decision, conflict or invalid"),
    ...commonErrors,
  },
});

export const sessionsRoute = createRoute({
  method: "post",
  path: "/v1/sessions",
  summary: "Report up to 100 finished sessions' bills",
  tags: ["ledger"],
  security: GATE_SECURITY,
  request: jsonRequest(reportRequestSchema("SessionsRequest", "SessionReport")),
  responses: {
    200: json(ReportResponseSchema, "One result per item, in order: accepted, conflict or invalid"),
    ...commonErrors,
  },
});

type ItemResultBody = z.infer<typeof ItemResultSchema>;

const invalid = (issues: ErrorIssue[]): ItemResult => ({
  status: "invalid",
  message: summarize(issues),
  issues,
});

/** Validates each item on its own: the valid ones, and a result already set for each invalid one. */
function validate<S extends z.ZodType>(items: unknown[], schema: S) {
  const results: (ItemResultBody | undefined)[] = new Array(items.length).fill(undefined);
  const valid: Indexed<z.infer<S>>[] = [];
  items.forEach((item, index) => {
    const parsed = schema.safeParse(item);
    if (parsed.success) valid.push({ index, item: parsed.data });
    else results[index] = invalid(fieldIssues(parsed.error, ["items", index]));
  });
  return { results, valid };
}

/** The answer: results in item order, then how many of each. */
function tally(results: (ItemResultBody | undefined)[]) {
  const counts = { accepted: 0, unknown_decision: 0, conflict: 0, invalid: 0 };
  const filled = results.map((result) => result ?? { status: "invalid" as const, message: "not answered" });
  for (const result of filled) counts[result.status]++;
  return { results: filled, ...counts };
}

/** The gate config the reports need (where the shards are, the budget); one that cannot be read is a 503 to retry. */
async function configOf(kv: KVNamespace, waitUntil: (p: Promise<unknown>) => void) {
  const read = await readGateConfig(kv, waitUntil);
  if (!read.ok) throw new ApiError("unavailable", `the gate config could not be read: ${read.detail}`);
  return read.config;
}

/** Runs a ledger call; a fault or a shard past ledger_timeout_ms becomes a 503 the caller can retry whole. */
async function orUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    console.error("offload-gate: ledger report failed:", error instanceof Error ? error.message : error);
    throw new ApiError(
      "unavailable",
      "the outcomes ledger could not be reached; retry the whole report (repeats are accepted)",
    );
  }
}

// The fixed key order that tells a repeated session report from a conflicting one: a summed bill
// without 1-hour writes keeps the key it always had; anything else adds what it billed.
function sessionReport(s: z.infer<typeof SessionItemSchema>): string {
  const total = sumUsage(s.usage.requests);
  const head = [
    s.session_id,
    s.model_name,
    s.turns,
    total.input_tokens,
    total.output_tokens,
    total.cache_read_input_tokens,
    total.cache_creation_input_tokens,
  ];
  // A covariate, when sent, is part of the content: the same bill with another covariate is a conflict.
  // So are the cache misses: after the covariate's place (null when none), in a fixed order, only when sent.
  const misses = s.cache_misses;
  const tail =
    misses !== undefined
      ? [s.covariate ?? null, misses.after_gate_rewrite, misses.other]
      : s.covariate === undefined
        ? []
        : [s.covariate];
  if (!s.usage.perRequest && total.cache_creation_1h_input_tokens === 0 && tail.length === 0)
    return JSON.stringify(head);
  return JSON.stringify([
    ...head,
    total.cache_creation_1h_input_tokens,
    s.usage.perRequest ? s.usage.requests.map((r) => Object.values(r)) : null,
    ...tail,
  ]);
}

// A summed usage tiers by the mean request; a list prices each request at its own size.
const billOf = (row: CachePriceRates, s: z.infer<typeof SessionItemSchema>) =>
  s.usage.perRequest ? requestsCost(row, s.usage.requests) : sessionCost(row, s.turns, s.usage.requests[0]!);

const FORGED: ItemResultBody = { status: "unknown_decision", message: "no decision of this tenant has this id" };

/**
 * The tags of the outcomes' ids (ledger/model/id-signing.ts), before any
 * shard is asked: an id no key in force signed (forged, or another
 * tenant's) is unknown_decision here, unasked. An authentic id issued within
 * the raw window is `pendable`: its outcome may wait for its decision. An
 * unsigned id (no key when it was issued) is asked unchanged.
 */
async function checkIds(
  keys: Env,
  tenant: string,
  now: number,
  rawDays: number,
  valid: Indexed<OutcomeReport>[],
  results: (ItemResultBody | undefined)[],
): Promise<{ asked: Indexed<OutcomeReport>[]; pendable: Set<string> }> {
  const checks = await Promise.all(valid.map(({ item }) => checkDecisionId(keys, tenant, item.decision_id)));
  const asked: Indexed<OutcomeReport>[] = [];
  const pendable = new Set<string>();
  valid.forEach((entry, i) => {
    const check = checks[i];
    if (check === undefined || check.kind === "forged") {
      results[entry.index] = FORGED;
      return;
    }
    asked.push(entry);
    if (check.kind === "authentic" && check.issuedMs >= now - rawDays * DAY_MS) pendable.add(entry.item.decision_id);
  });
  return { asked, pendable };
}

const DAY_MS = 86_400_000;

/**
 * POST /v1/outcomes and POST /v1/sessions: agents report what happened;
 * the caller's tenant is the only ledger they reach.
 *
 * @example
 * curl -s 127.0.0.1:8787/v1/outcomes -H 'content-type: application/json' \
 *   -d '{"items":[{"decision_id":"dec_2_9f86d081884c7d659a2feaa0c55ad015","turns_after":5,"recalled":false,"cached_turns":4}]}'
 */
export const reports = createApp()
  .openapi(outcomesRoute, async (c) => {
    const tenant = c.get("tenant") ?? OPEN_TENANT;
    const { results, valid } = validate(c.req.valid("json").items, OutcomeItemSchema);
    const config = await configOf(c.env.PRICING, waitUntilOf(c));
    const options = {
      shards: config.ledger_shards,
      timeoutMs: config.ledger_timeout_ms,
      rawDays: config.ledger_raw_days,
    };
    const now = Date.now();
    const { asked, pendable } = await checkIds(c.env, tenant, now, config.ledger_raw_days, valid, results);
    const answers = await orUnavailable(() => reportOutcomes(c.env.LEDGER, tenant, now, options, asked, pendable));
    for (const [index, result] of answers) results[index] = result;
    return c.json(tally(results), 200);
  })
  .openapi(sessionsRoute, async (c) => {
    const tenant = c.get("tenant") ?? OPEN_TENANT;
    const waitUntil = waitUntilOf(c);
    const { results, valid } = validate(c.req.valid("json").items, SessionItemSchema);
    const config = await configOf(c.env.PRICING, waitUntil);
    // The request counted once already; each further distinct model is a lookup, as in a gate batch.
    const models = new Set(valid.map(({ item }) => item.model_name));
    await enforceRateLimit(c.env.GATE_RATE_LIMITER, tenant, models.size - 1);
    const priced: Indexed<PricedSession>[] = [];
    for (const { index, item } of valid) {
      const { lookup } = await readPricing(c.env.PRICING, item.model_name, config, waitUntil);
      // A bill that cannot be priced is that item's problem, never the whole report's.
      if (lookup.status !== "priced") {
        const why =
          lookup.status === "unpriced" && lookup.ambiguous !== undefined
            ? (ambiguityIssue(lookup, item.model_name, "")?.message ?? "")
            : lookup.status === "unpriced"
              ? "has no pricing row, so its bill cannot be priced"
              : "could not be priced: its pricing could not be read; report this item again";
        results[index] = invalid([{ path: `items.${index}.model_name`, message: why }]);
        continue;
      }
      priced.push({
        index,
        item: {
          ...item,
          usage: sumUsage(item.usage.requests),
          priced_as: lookup.canonical,
          cost_usd: billOf(lookup.row, item),
          report: sessionReport(item),
        },
      });
    }
    const answers = await orUnavailable(() =>
      reportSessions(
        c.env.LEDGER,
        tenant,
        Date.now(),
        {
          shards: config.ledger_shards,
          timeoutMs: config.ledger_timeout_ms,
          retentionDays: config.ledger_retention_days,
          rawDays: config.ledger_raw_days,
          index: c.env.PRICING,
        },
        priced,
      ),
    );
    for (const [index, result] of answers) results[index] = result;
    return c.json(tally(results), 200);
  });

// The usage shapes `usage` refers to by name (it is parsed by hand, so the generator cannot reach them).
for (const [name, schema] of USAGE_COMPONENTS) reports.openAPIRegistry.register(name, schema);
// The items both report bodies refer to by name: each item is validated on its own (reportRequestSchema's
// z.unknown() with a $ref), so no route's schema reaches them and the generator would leave the $refs dangling.
reports.openAPIRegistry.register("OutcomeReport", OutcomeItemSchema);
reports.openAPIRegistry.register("SessionReport", SessionItemSchema);
