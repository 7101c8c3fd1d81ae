import { createRoute } from "@hono/zod-openapi";
import { GATE_SECURITY, OPEN_TENANT } from "../../auth";
import { ApiError, waitUntilOf } from "../../http";
import {
  BUCKET_MS,
  bucketFor,
  gatherSums,
  gatherToolPairs,
  holdoutFigures,
  recallRangeOf,
  savingsFigures,
  writtenShards,
} from "../../ledger";
import { readGateConfig } from "../../storage";
import { DEFAULT_GATE_CONFIG, OBSERVED_TOOL_PREFIX } from "../../storage/rules";
import { CALLER_ERRORS, createApp, ErrorSchema, json } from "../kernel/openapi";
import { AdminSavingsQuerySchema, SavingsQuerySchema, SavingsReportSchema } from "./schema";

const DAY_MS = 86_400_000;

export const savingsRoute = createRoute({
  method: "get",
  path: "/v1/savings",
  summary:
    "What the gate saved the caller's tenant: predicted against realized net, priors against outcomes, holdout against treatment",
  tags: ["ledger"],
  security: GATE_SECURITY,
  request: { query: SavingsQuerySchema },
  responses: {
    200: json(SavingsReportSchema, "The savings report for the window, tool and model"),
    400: json(ErrorSchema, "A query parameter is wrong or unknown; the error names it"),
    ...CALLER_ERRORS,
    503: json(ErrorSchema, "No shard of the ledger could be reached"),
  },
});

export const adminSavingsRoute = createRoute({
  method: "get",
  path: "/v1/admin/savings",
  summary: "Any tenant's savings report",
  // One tag: Swagger UI lists a route once per tag.
  tags: ["ledger"],
  security: [{ adminBearer: [] }],
  request: { query: AdminSavingsQuerySchema },
  responses: {
    200: json(SavingsReportSchema, "The savings report for the tenant, window, tool and model"),
    400: json(ErrorSchema, "tenant is missing, or a query parameter is wrong or unknown; the error names it"),
    401: json(ErrorSchema, "The admin token is missing or wrong"),
    503: json(ErrorSchema, "No shard of the ledger could be reached"),
  },
});

interface Query {
  from?: string;
  to?: string;
  tool_name?: string;
  model?: string;
}

/** The report for one tenant: every shard's sums, merged, then the figures. */
async function savingsReport(env: Env, tenant: string, query: Query, waitUntil: (p: Promise<unknown>) => void) {
  const configRead = await readGateConfig(env.PRICING, waitUntil);
  // The shard count is only where to look: a config that cannot be read falls back to the default.
  const config = configRead.ok ? configRead.config : DEFAULT_GATE_CONFIG;
  const to = query.to === undefined ? Date.now() : Date.parse(query.to);
  const from = query.from === undefined ? to - config.ledger_retention_days * DAY_MS : Date.parse(query.from);
  if (!(from < to))
    throw new ApiError("invalid_request", "from must be before to", [{ path: "from", message: "must be before to" }]);
  // Minutes come from raw rows: a short window older than the raw window is charted by the hour.
  const bucket =
    bucketFor(from, to) === "minute" &&
    from < Date.now() - Math.min(config.ledger_raw_days, config.ledger_retention_days) * DAY_MS
      ? "hour"
      : bucketFor(from, to);
  const filter = {
    from,
    to,
    ...(query.tool_name === undefined ? {} : { tool_name: query.tool_name }),
    ...(query.model === undefined ? {} : { model: query.model }),
  };
  // Only the shards the tenant ever wrote: one that never wrote gets an empty report, no object touched.
  const written = await writtenShards(env.PRICING, tenant, config.ledger_shards);
  const [gathered, pairs] = await Promise.all([
    gatherSums(env.LEDGER, tenant, written, filter, BUCKET_MS[bucket], config.ledger_timeout_ms),
    gatherToolPairs(env.LEDGER, tenant, written, filter, config.ledger_timeout_ms),
  ]);
  const { sums } = gathered;
  // A shard that missed either read is missing from the report.
  const unavailable = new Set([...gathered.failed, ...pairs.failed]).size;
  if (written.length > 0 && unavailable === written.length)
    throw new ApiError("unavailable", "no shard of the outcomes ledger could be reached; retry");
  const figures = savingsFigures(sums);
  const holdout = holdoutFigures(pairs.pairs, config.holdout_fraction);
  return {
    tenant,
    window: { from: new Date(from).toISOString(), to: new Date(to).toISOString() },
    filters: { tool_name: query.tool_name ?? null, model: query.model ?? null },
    ...figures,
    holdout: {
      ...holdout,
      // The proxy's decisions (docs/design/proxy.md §6): what the gate would have done, nothing stubbed.
      tools: holdout.tools.map((tool) => {
        const observed = tool.tool_name.startsWith(OBSERVED_TOOL_PREFIX);
        const counts = sums.observed_recall_by_tool.find((row) => row.tool_name === tool.tool_name);
        // An observed tool's recall rate as the range its evidence allows (docs/design/learning.md §8).
        return {
          ...tool,
          observed,
          recall_range: observed ? recallRangeOf(counts ?? { n: 0, low: 0, high: 0 }) : null,
        };
      }),
    },
    bucket,
    series: figures.series.map((point) => ({ ...point, start: new Date(point.start).toISOString() })),
    shards: { queried: written.length, unavailable, partial: unavailable > 0 },
  };
}

/**
 * GET /v1/savings (the caller's tenant) and GET /v1/admin/savings?tenant=
 * (any tenant, admin token): the outcomes ledger's report.
 *
 * @example
 * curl -s '127.0.0.1:8787/v1/savings?tool_name=web.fetch&from=2026-11-01T00:00:00Z'
 */
export const savings = createApp()
  .openapi(savingsRoute, async (c) =>
    c.json(await savingsReport(c.env, c.get("tenant") ?? OPEN_TENANT, c.req.valid("query"), waitUntilOf(c)), 200),
  )
  .openapi(adminSavingsRoute, async (c) => {
    const { tenant, ...query } = c.req.valid("query");
    return c.json(await savingsReport(c.env, tenant, query, waitUntilOf(c)), 200);
  });
