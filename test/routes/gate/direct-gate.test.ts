import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { directGate } from "../../../src/routes/gate";
import worker from "../../../src/index";
import { MAX_BODY_BYTES } from "../../../src/http/guards";
import { VECTOR_PRICING, VECTORS } from "../../fixtures/vectors";
import { gateRequest } from "../../support/fuzz-gate-bodies";
import { EXAMPLE_A, OPUS, putGateConfig, putRow, resetState } from "../../support/helpers";
import { TEST_GATE_API_KEYS, PROD_KEY } from "../../support/secrets";
import { runs } from "../../support/runs";

// The gate's direct path (src/routes/gate/direct/direct.ts) serves POST /v1/gate and
// /v1/gate/batch when the request declares its length; without one, the same
// request takes Hono's pipeline. Every answer must be the same bytes either way.

const encoder = new TextEncoder();

interface Sent {
  path?: string;
  body: string;
  headers?: Record<string, string>;
}

/** The request as an HTTP client sends it (its length declared), or without the length: Hono's path. */
function request({ path = "/v1/gate", body, headers = {} }: Sent, direct: boolean): Request {
  const length: Record<string, string> = direct ? { "content-length": String(encoder.encode(body).byteLength) } : {};
  return new Request(`http://gate.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers, ...length },
    body,
  });
}

/** Status, every header and the body, with each decision's random id (and nothing else) masked. */
async function answerOf(
  req: Request,
  bindings: Env = env,
): Promise<{ status: number; headers: [string, string][]; body: string }> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(req, bindings, ctx);
  await waitOnExecutionContext(ctx);
  const body = (await res.text()).replace(/"decision_id":"dec_[0-9a-f]+_[0-9a-f]+"/g, '"decision_id":"dec_…"');
  return { status: res.status, headers: [...res.headers], body };
}

async function expectSameAnswer(sent: Sent, bindings: Env = env): Promise<{ status: number; body: string }> {
  const direct = await answerOf(request(sent, true), bindings);
  const hono = await answerOf(request(sent, false), bindings);
  expect(direct).toEqual(hono);
  return direct;
}

const json = (value: unknown) => JSON.stringify(value);

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

describe("the gate's direct path", () => {
  it("takes a POST to /v1/gate or /v1/gate/batch that declares its length, and leaves everything else to Hono", () => {
    const taken = (req: Request) => directGate(req, env, undefined) !== undefined;
    expect(taken(request({ body: json(EXAMPLE_A) }, true))).toBe(true);
    expect(taken(request({ path: "/v1/gate/batch", body: json({ items: [EXAMPLE_A] }) }, true))).toBe(true);
    expect(taken(request({ path: "/v1/gate?trace=1", body: json(EXAMPLE_A) }, true))).toBe(true);
    expect(taken(request({ body: json(EXAMPLE_A) }, false))).toBe(false);
    expect(taken(request({ path: "/v1/%67ate", body: json(EXAMPLE_A) }, true))).toBe(false);
    expect(taken(request({ path: "/v1/gate/", body: json(EXAMPLE_A) }, true))).toBe(false);
    expect(taken(request({ path: "/v1/gate/curve", body: json({ request: EXAMPLE_A }) }, true))).toBe(false);
    expect(
      taken(request({ body: json(EXAMPLE_A), headers: { "content-type": "application/json ;charset=utf-8" } }, true)),
    ).toBe(false);
    expect(taken(new Request("http://gate.test/v1/gate"))).toBe(false);
  });

  it.each<[string, Sent]>([
    ["a worked example", { body: json(EXAMPLE_A) }],
    ["a decision below the pre-filter", { body: json({ model_name: "claude-opus-4-6", output_tokens: 10 }) }],
    ["a model with no row", { body: json({ ...EXAMPLE_A, model_name: "claude-opus-4-7" }) }],
    ["a dry run", { body: json({ ...EXAMPLE_A, dry_run: true }) }],
    ["a session and a tool", { body: json({ ...EXAMPLE_A, session_id: "s-1", tool_name: "grep" }) }],
    [
      "a cache-aware decision",
      { body: json({ ...EXAMPLE_A, pricing_mode: "cache_aware", cache_hit_rate: 0.8, context_tokens: 50_000 }) },
    ],
    ["a cache-aware field in seed mode", { body: json({ ...EXAMPLE_A, cache_hit_rate: 0.8 }) }],
    [
      "ranges for the robust rule",
      { body: json({ ...EXAMPLE_A, horizon: undefined, horizon_range: [2, 9], recall_probability_range: [0.1, 0.5] }) },
    ],
    ["a missing field", { body: json({ model_name: "claude-opus-4-6" }) }],
    ["a field of the wrong type", { body: json({ ...EXAMPLE_A, horizon: "4" }) }],
    ["an unknown field", { body: json({ ...EXAMPLE_A, horizn: 4 }) }],
    ["JSON that is not an object", { body: "[1,2]" }],
    ["null", { body: "null" }],
    ["a body that does not parse", { body: "{not json" }],
    ["an empty body", { body: "" }],
    ["a byte-order mark before the JSON", { body: `\uFEFF${json(EXAMPLE_A)}` }],
    ["a UTF-8 charset", { body: json(EXAMPLE_A), headers: { "content-type": "application/json; charset=utf-8" } }],
    ["a latin-1 charset", { body: json(EXAMPLE_A), headers: { "content-type": "application/json; charset=latin1" } }],
    ["a structured JSON type", { body: json(EXAMPLE_A), headers: { "content-type": "application/vnd.agent+json" } }],
    ["a compressed body", { body: json(EXAMPLE_A), headers: { "content-encoding": "gzip" } }],
    ["an identity encoding", { body: json(EXAMPLE_A), headers: { "content-encoding": "identity" } }],
    ["a body over the limit", { body: json({ ...EXAMPLE_A, tool_name: "x".repeat(MAX_BODY_BYTES) }) }],
    [
      "a batch of mixed items",
      {
        path: "/v1/gate/batch",
        body: json({ items: [EXAMPLE_A, { model_name: "gpt-9" }, { ...EXAMPLE_A, output_tokens: -1 }] }),
      },
    ],
    ["a batch dry run", { path: "/v1/gate/batch", body: json({ items: [EXAMPLE_A], dry_run: true }) }],
    [
      "a batch over its limit",
      { path: "/v1/gate/batch", body: json({ items: Array.from({ length: 101 }, () => EXAMPLE_A) }) },
    ],
    ["a batch without items", { path: "/v1/gate/batch", body: json({ item: [] }) }],
  ])("answers %s byte for byte as Hono's pipeline does", async (_name, sent) => {
    await expectSameAnswer(sent);
  });

  it("answers a gate key's absence, a wrong key and a right one as Hono's pipeline does", async () => {
    const keyed = { ...env, GATE_API_KEYS: TEST_GATE_API_KEYS };
    expect((await expectSameAnswer({ body: json(EXAMPLE_A) }, keyed)).status).toBe(401);
    expect(
      (await expectSameAnswer({ body: json(EXAMPLE_A), headers: { authorization: "Bearer nope" } }, keyed)).status,
    ).toBe(401);
    expect(
      (await expectSameAnswer({ body: json(EXAMPLE_A), headers: { authorization: `Bearer ${PROD_KEY}` } }, keyed))
        .status,
    ).toBe(200);
    // The key is checked before the body: a wrong key with a broken body is still a 401.
    expect((await expectSameAnswer({ body: "{not json" }, keyed)).status).toBe(401);
  });

  it("answers a config that cannot be read as Hono's pipeline does", async () => {
    await putGateConfig("{not json");
    const { status, body } = await expectSameAnswer({ body: json(EXAMPLE_A) });
    expect(status).toBe(200);
    expect(JSON.parse(body).fire).toBe(false);
  });

  it("answers any body built from the gate's fields byte for byte as Hono's pipeline does", async () => {
    const value = fc.oneof(
      fc.integer({ min: -5, max: 200_000 }),
      fc.double({ noNaN: true, min: -1, max: 1e7 }),
      fc.boolean(),
      fc.constant(null),
      fc.constantFrom("claude-opus-4-6", "gpt-9", "seed", "cache_aware", "end", "1h", ""),
      fc.tuple(fc.double({ noNaN: true, min: 0, max: 1 }), fc.double({ noNaN: true, min: 0, max: 1 })),
    );
    const field = fc.constantFrom(
      "model_name",
      "output_tokens",
      "output_chars",
      "horizon",
      "recall_probability",
      "stub_tokens",
      "pricing_mode",
      "cache_hit_rate",
      "context_tokens",
      "offload_at",
      "cache_ttl",
      "horizon_range",
      "recall_probability_range",
      "dry_run",
      "nonsense",
    );
    const body = fc
      .dictionary(field, value, { maxKeys: 6 })
      .map((fields) => ({ model_name: "claude-opus-4-6", output_tokens: 20_000, ...fields }));
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (fields, batched) => {
        await expectSameAnswer(
          batched ? { path: "/v1/gate/batch", body: json({ items: [fields, fields] }) } : { body: json(fields) },
        );
      }),
      { numRuns: runs(120) },
    );
  });
  // The direct path checks a body with the validator compiled from the zod
  // schema (src/routes/gate/direct/compiled.ts); Hono's with zod itself.
  it("answers every conformance vector byte for byte as Hono's pipeline does", async () => {
    for (const [model, row] of Object.entries(VECTOR_PRICING))
      if (row.output !== undefined) await putRow(model, { input: row.input ?? 0, output: row.output });
    const statuses = new Set<number>();
    for (const vector of VECTORS) statuses.add((await expectSameAnswer({ body: json(vector.inputs) })).status);
    for (let start = 0; start < VECTORS.length; start += 100) {
      await expectSameAnswer({
        path: "/v1/gate/batch",
        body: json({ items: VECTORS.slice(start, start + 100).map((vector) => vector.inputs) }),
      });
    }
    expect([...statuses].sort()).toEqual([200, 400]);
  }, 60_000);

  it("answers 300 bodies of the fuzz corpus byte for byte as Hono's pipeline does", async () => {
    await putRow("gpt-5", { input: 1.25, output: 10 });
    const bodies = fc.sample(gateRequest, { seed: 20261202, numRuns: 300 });
    for (const [index, body] of bodies.entries()) {
      await expectSameAnswer(
        index % 3 === 2
          ? { path: "/v1/gate/batch", body: json({ items: bodies.slice(index - 2, index + 1) }) }
          : { body: json(body) },
      );
    }
  }, 60_000);
});
