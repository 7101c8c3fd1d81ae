import { env } from "cloudflare:workers";
import fc from "fast-check";
import { pendingDigest, type PendingChange } from "../../src/sync/pending";
import { MODELS } from "./fuzz-gate-bodies";
import { runs } from "./runs";

export const SEED = 20261130;
export const RUNS = runs(2_500);

// Known secrets: no answer may ever carry them.
export const ADMIN_TOKEN = "admin-s3cret-token-7f3a9c";
export const GATE_KEY = "gk-s3cret-prod-41b2e8";
export const GATE_API_KEYS = `agents-prod:${GATE_KEY},agents-staging:gk-s3cret-staging-99d0`;
export const SECRETS = [ADMIN_TOKEN, GATE_KEY, "gk-s3cret-staging-99d0", "s3cret"];

// Routes that legitimately answer HTML rather than JSON.
export const HTML_PATHS = new Set(["/", "/docs", "/console/replay"]);

// Pending changes the fuzz approves, rejects and deletes: one to approve (its `before` is gpt-5's
// row as beforeEach writes it), one rejected, one that does not parse.
export const GPT5_ROW = { input: 1.25, output: 10 };
export const PENDING_GPT5: PendingChange = {
  model: "gpt-5",
  kind: "changed",
  status: "pending",
  before: GPT5_ROW,
  after: { input: 1.5, output: 10, source: "https://prices.example.test/prices.json" },
  fields: [{ field: "input", from: 1.25, to: 1.5 }],
  source: "https://prices.example.test/prices.json",
  detected_at: "2026-11-30T06:17:00.000Z",
};
export const PENDING_DIGEST = await pendingDigest(PENDING_GPT5);

export async function putPending(): Promise<void> {
  await env.PRICING.put("pending:gpt-5", JSON.stringify(PENDING_GPT5));
  await env.PRICING.put(
    "pending:claude-opus-4-6",
    JSON.stringify({
      ...PENDING_GPT5,
      model: "claude-opus-4-6",
      status: "rejected",
      rejected_by: "ops-bob",
      rejected_at: "2026-11-30T07:00:00.000Z",
    }),
  );
  await env.PRICING.put("pending:unknown-model", "{ not json");
}

export const modelSegment = fc.oneof(
  fc.constantFrom(...MODELS),
  fc.string({ maxLength: 40 }).map((text) => encodeURIComponent(text)),
  fc.stringMatching(/^[A-Za-z0-9._:@+-]{1,140}$/),
);

// Weighted towards the gate, the route agents call on every turn.
export const path = fc.oneof(
  { weight: 8, arbitrary: fc.constant("/v1/gate") },
  { weight: 3, arbitrary: fc.constant("/v1/gate/batch") },
  { weight: 2, arbitrary: fc.constant("/v1/gate/curve") },
  { weight: 3, arbitrary: fc.constant("/v1/plan") },
  { weight: 2, arbitrary: fc.constant("/v1/context-management") },
  {
    weight: 1,
    arbitrary: fc.constantFrom("/v1/admin/pricing", "/v1/admin/aliases", "/v1/admin/config", "/v1/admin/pending"),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(modelSegment, fc.constantFrom("/approve", "/reject", "", "/other"))
      .map(([model, rest]) => `/v1/admin/pending/${model}${rest}`),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "/healthz",
      "/openapi.json",
      "/docs",
      "/",
      "/console/replay",
      "/console/replay/",
      "/v1",
      "/v1/",
      "/v1/gate/",
      "//v1/gate",
      "/V1/GATE",
    ),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(modelSegment, fc.constantFrom("", "/history", "/rollback"))
      .map(([model, rest]) => `/v1/admin/pricing/${model}${rest}`),
  },
  { weight: 1, arbitrary: modelSegment.map((alias) => `/v1/admin/aliases/${alias}`) },
  { weight: 3, arbitrary: fc.constantFrom("/v1/outcomes", "/v1/sessions") },
  { weight: 1, arbitrary: fc.constantFrom("/v1/savings", "/v1/admin/savings") },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          "/v1/learning",
          "/v1/admin/learning",
          "/v1/admin/learning/refresh",
          "/v1/admin/learning/import",
        ),
        fc.oneof(fc.constantFrom("", "tenant=default", "tenant=agents-prod", "tenant="), fc.webQueryParameters()),
      )
      .map(([route, query]) => (query === "" ? route : `${route}?${query}`)),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.oneof(fc.constantFrom("default", "agents-prod"), modelSegment),
        fc.constantFrom("", "/history", "/rollback"),
      )
      .map(([tenant, rest]) => `/v1/admin/learning/breakers/${tenant}${rest}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.oneof(fc.constantFrom("default", "agents-prod"), modelSegment),
        fc.constantFrom("", "/history", "/rollback"),
      )
      .map(([tenant, rest]) => `/v1/admin/learning/acks/${tenant}${rest}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.oneof(fc.constantFrom("default", "agents-prod"), modelSegment),
        fc.constantFrom("/history", "/rollback", ""),
      )
      .map(([tenant, rest]) => `/v1/admin/learning/import/${tenant}${rest}`),
  },
  { weight: 1, arbitrary: fc.webPath() },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom("/v1/gate", "/healthz", "/v1/admin/pricing", "/v1/savings", "/v1/admin/savings"),
        fc.webQueryParameters(),
      )
      .map(([route, query]) => `${route}?${query}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom("/v1/savings", "/v1/admin/savings"),
        fc.record(
          {
            from: fc.oneof(
              fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
              fc.string({ maxLength: 30 }),
            ),
            to: fc.oneof(
              fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
              fc.string({ maxLength: 30 }),
            ),
            tool_name: fc.oneof(fc.constantFrom("grep", "web.fetch"), fc.string({ maxLength: 80 })),
            model: fc.oneof(fc.constantFrom(...MODELS), fc.string({ maxLength: 40 })),
            tenant: fc.oneof(fc.constantFrom("default", "agents-prod"), fc.string({ maxLength: 80 })),
          },
          { requiredKeys: [] },
        ),
      )
      .map(([route, query]) => `${route}?${new URLSearchParams(query as Record<string, string>)}`),
  },
);

export const method = fc.oneof(
  { weight: 6, arbitrary: fc.constant("POST") },
  { weight: 2, arbitrary: fc.constantFrom("GET", "PUT") },
  { weight: 1, arbitrary: fc.constantFrom("PATCH", "DELETE", "HEAD", "OPTIONS") },
);

export const contentType = fc.option(
  fc.oneof(
    { weight: 8, arbitrary: fc.constant("application/json") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "application/json",
        "application/json; charset=utf-8",
        "APPLICATION/JSON",
        "application/vnd.api+json",
        "application/problem+json",
        "application/merge-patch+json",
        "text/plain",
        "text/json",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=xyz",
        "",
      ),
    },
    { weight: 1, arbitrary: fc.stringMatching(/^[\x20-\x7e]{0,60}$/) },
  ),
  { nil: undefined, freq: 10 },
);

// A token the API has never seen, shaped so that an echo of it is unmistakable.
export const strayToken = fc.stringMatching(/^[0-9a-f]{16,32}$/).map((hex) => `tok_${hex}`);

// Mostly the real tokens, so that requests get past authentication to the
// handlers behind it; the rest probe authentication itself.
export const authorization = fc.option(
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(`Bearer ${ADMIN_TOKEN}`) },
    { weight: 4, arbitrary: fc.constant(`Bearer ${GATE_KEY}`) },
    fc.constant(`bearer ${ADMIN_TOKEN}`),
    fc.constant(`Bearer  ${ADMIN_TOKEN} `),
    fc.constant(`Basic ${btoa(`admin:${ADMIN_TOKEN}`)}`),
    fc.constant(ADMIN_TOKEN),
    strayToken.map((token) => `Bearer ${token}`),
    strayToken,
    fc.constantFrom("Bearer", "Bearer ", "", "Token x", "Bearer agents-prod"),
    fc.stringMatching(/^[\x20-\x7e]{0,80}$/),
  ),
  { nil: undefined },
);

// Curve spans at and past their bounds, and wild values in their place.

export const adminAuthorization = fc.oneof(
  { weight: 4, arbitrary: fc.constant(`Bearer ${ADMIN_TOKEN}`) },
  { weight: 1, arbitrary: authorization },
);
