import fc from "fast-check";
import { MAX_BODY_BYTES } from "../../src/http/guards";
import { gateRequest } from "./fuzz-gate-bodies";
import { PENDING_DIGEST, adminAuthorization, authorization, contentType, method, path } from "./fuzz-routes";
import {
  clearingRequest,
  curveRequest,
  mergePatchBody,
  outcomeItem,
  planRequest,
  plausibleRow,
  pricingRow,
  sessionItem,
} from "./fuzz-bodies";

export const bodyText = fc.oneof(
  { weight: 2, arbitrary: fc.array(outcomeItem, { maxLength: 110 }).map((items) => JSON.stringify({ items })) },
  { weight: 2, arbitrary: fc.array(sessionItem, { maxLength: 110 }).map((items) => JSON.stringify({ items })) },
  { weight: 4, arbitrary: gateRequest.map((body) => JSON.stringify(body)) },
  { weight: 2, arbitrary: fc.array(gateRequest, { maxLength: 120 }).map((items) => JSON.stringify({ items })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(gateRequest, { maxLength: 20 }), fc.oneof(fc.boolean(), fc.jsonValue()))
      .map(([items, dryRun]) => JSON.stringify({ items, dry_run: dryRun })),
  },
  { weight: 2, arbitrary: curveRequest.map((body) => JSON.stringify(body)) },
  { weight: 3, arbitrary: planRequest.map((body) => JSON.stringify(body)) },
  { weight: 2, arbitrary: clearingRequest.map((body) => JSON.stringify(body)) },
  { weight: 2, arbitrary: pricingRow.map((row) => JSON.stringify(row)) },
  { weight: 3, arbitrary: plausibleRow.map((row) => JSON.stringify(row)) },
  { weight: 2, arbitrary: mergePatchBody.map((patch) => JSON.stringify(patch)) },
  {
    weight: 1,
    arbitrary: fc.record({ version: fc.oneof(fc.nat({ max: 4 }), fc.jsonValue()) }).map((body) => JSON.stringify(body)),
  },
  // An approval's or rejection's body: the listed digest, another one, or anything at all.
  {
    weight: 2,
    arbitrary: fc
      .record(
        {
          digest: fc.oneof(
            fc.constant(PENDING_DIGEST),
            fc.stringMatching(/^[0-9a-f]{64}$/),
            fc.stringMatching(/^[0-9A-Fa-f]{0,70}$/),
            fc.jsonValue(),
          ),
          note: fc.oneof(fc.string({ maxLength: 600 }), fc.jsonValue()),
        },
        { requiredKeys: [] },
      )
      .map((body) => JSON.stringify(body)),
  },
  {
    weight: 1,
    arbitrary: fc
      .record(
        {
          expected_conversation_depth: fc.oneof(fc.nat({ max: 20 }), fc.jsonValue()),
          p_recall: fc.double(),
          pricing_cache_ttl_seconds: fc.integer({ min: -5, max: 4_000 }),
          kv_budget_ms: fc.integer({ min: -5, max: 20_000 }),
          pricing_mode: fc.constantFrom("seed", "cache_aware", "x"),
          learning_enabled: fc.oneof(fc.boolean(), fc.jsonValue()),
          learning_prior_weight: fc.oneof(fc.double(), fc.jsonValue()),
          learning_window_days: fc.integer({ min: -2, max: 4_000 }),
          learning_credible: fc.oneof(fc.constant(null), fc.double()),
          learning_refresh_seconds: fc.integer({ min: -5, max: 100_000 }),
          breaker_probe_fraction: fc.double(),
          learning_explore_fraction: fc.oneof(fc.double(), fc.jsonValue()),
          proxy_modes: fc.oneof(
            fc.constant(null),
            fc.dictionary(
              fc.oneof(fc.constantFrom("agents-prod", "__proto__", "constructor"), fc.string({ maxLength: 70 })),
              fc.oneof(fc.constantFrom("observe", "enforce", "off"), fc.jsonValue()),
              { maxKeys: 4 },
            ),
            fc.jsonValue(),
          ),
        },
        { requiredKeys: [] },
      )
      .map((body) => JSON.stringify(body)),
  },
  {
    weight: 1,
    arbitrary: fc
      .record(
        {
          tool_name: fc.oneof(fc.constantFrom("read_file", "grep"), fc.string({ maxLength: 80 }), fc.jsonValue()),
          state: fc.oneof(fc.constantFrom("open", "closed", "auto"), fc.jsonValue()),
        },
        { requiredKeys: [] },
      )
      .map((body) => JSON.stringify(body)),
  },
  // An acknowledgement's body (PUT /v1/admin/learning/acks/{tenant}).
  {
    weight: 1,
    arbitrary: fc
      .record(
        {
          tool_name: fc.oneof(fc.constantFrom("read_file", "grep"), fc.string({ maxLength: 80 }), fc.jsonValue()),
          acknowledged: fc.oneof(fc.boolean(), fc.jsonValue()),
        },
        { requiredKeys: [] },
      )
      .map((body) => JSON.stringify(body)),
  },
  {
    weight: 1,
    arbitrary: fc
      .record(
        {
          version: fc.oneof(fc.constant(1), fc.jsonValue()),
          source: fc.oneof(fc.constant("replay"), fc.jsonValue()),
          tools: fc.oneof(
            fc.dictionary(
              fc.oneof(fc.constantFrom("read_file", "__proto__", "constructor"), fc.string({ maxLength: 70 })),
              fc.record(
                {
                  sums: fc.oneof(
                    fc.record({
                      p_n: fc.double(),
                      p_r: fc.double(),
                      h_n: fc.nat(),
                      h_sum: fc.nat(),
                      h_sumsq: fc.nat(),
                      q_n: fc.nat(),
                      q_cached: fc.nat(),
                      q_turns: fc.nat(),
                    }),
                    fc.jsonValue(),
                  ),
                  bands: fc.oneof(
                    fc.dictionary(fc.constantFrom("lt2k", "2k-10k", "ge10k", "huge"), fc.jsonValue(), { maxKeys: 3 }),
                    fc.jsonValue(),
                  ),
                },
                { requiredKeys: [] },
              ),
              { maxKeys: 4 },
            ),
            fc.jsonValue(),
          ),
        },
        { requiredKeys: [] },
      )
      .map((body) => JSON.stringify(body)),
  },
  { weight: 2, arbitrary: fc.json() },
  { weight: 2, arbitrary: fc.string({ maxLength: 200 }) },
  { weight: 1, arbitrary: fc.constantFrom("", "{", "[]", "null", '{"model_name":', "\u0000", '{"items":null}') },
  {
    weight: 1,
    arbitrary: fc.constant(JSON.stringify({ model_name: "gpt-5", output_tokens: 1, pad: "x".repeat(MAX_BODY_BYTES) })),
  },
);

// Admin paths mostly carry the admin token, so the fuzz reaches their handlers.

export const requestSpec = path.chain((route) =>
  fc.record({
    method,
    path: fc.constant(route),
    contentType,
    authorization: route.startsWith("/v1/admin") ? adminAuthorization : authorization,
    body: bodyText,
    gateKeysConfigured: fc.boolean(),
  }),
);

export type RequestSpec = typeof requestSpec extends fc.Arbitrary<infer T> ? T : never;

export function toRequest(spec: RequestSpec): Request {
  const headers = new Headers();
  if (spec.contentType !== undefined) headers.set("content-type", spec.contentType);
  if (spec.authorization !== undefined) headers.set("authorization", spec.authorization);
  const hasBody = spec.method !== "GET" && spec.method !== "HEAD";
  return new Request(`http://gate.test${spec.path}`, {
    method: spec.method,
    headers,
    ...(hasBody ? { body: spec.body } : {}),
  });
}
