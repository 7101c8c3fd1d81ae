import type { LedgerDecision } from "../../src/ledger";
import { OPUS } from "../fixtures/rows";
import { PROD_KEY, STAGING_KEY, TEST_GATE_API_KEYS } from "./secrets";

/**
 * The design note's second demonstration as one ledger decision: the seed
 * gate, 12,000 Opus tokens at its priors (h 4, p 0.25, q prior 0.9), no
 * context on the request. It predicts +$0.230375.
 */
export function seedDecision(over: Partial<LedgerDecision> = {}): LedgerDecision {
  return {
    decision_id: `dec_0_${"0".repeat(32)}`,
    at: 1_800_000_000_000,
    session_id: "session-1",
    tool_name: "web.fetch",
    model_name: "claude-opus-4-6",
    priced_as: "claude-opus-4-6",
    pricing_mode: "seed",
    reason_code: "net_positive",
    fire: true,
    would_fire: true,
    holdout: false,
    predicted_net_usd: 0.230375,
    inputs: {
      output_tokens: 12_000,
      horizon: 4,
      recall_probability: 0.25,
      cache_hit_rate: 0.9,
      context_tokens: null,
      stub_tokens: 200,
      recall_input_tokens: 2_000,
      recall_output_tokens: 500,
    },
    row: OPUS,
    ...over,
  };
}

/** A decision id in `shard` whose random part is `n`, for tests that need many distinct ids. */
export function decisionIdOf(shard: number, n: number): string {
  return `dec_${shard}_${n.toString(16).padStart(32, "0")}`;
}

/** Two tenants and their gate keys (test/support/secrets.ts), for tests that call with GATE_API_KEYS set. */
export const KEYS = { "agents-prod": PROD_KEY, "agents-staging": STAGING_KEY } as const;
export type Tenant = keyof typeof KEYS;

/**
 * Calls the worker's fetch handler with `env` (changed as the test needs:
 * keys set, a faulty ledger bound) and waits for its waitUntil work, so the
 * ledger holds the decisions before the next call.
 */
export async function callWorker(
  path: string,
  init: RequestInit & { json?: unknown; key?: keyof typeof KEYS } = {},
  envOver: Partial<Env> = {},
): Promise<Response> {
  const { createExecutionContext, waitOnExecutionContext } = await import("cloudflare:test");
  const { env } = await import("cloudflare:workers");
  const { default: worker } = await import("../../src/index");
  const headers = new Headers(init.headers);
  if (init.json !== undefined) headers.set("content-type", "application/json");
  if (init.key !== undefined) headers.set("authorization", `Bearer ${KEYS[init.key]}`);
  const body = init.json === undefined ? undefined : JSON.stringify(init.json);
  // Declared as an HTTP client declares it: gate requests take the direct path (src/routes/gate/direct/direct.ts).
  if (body !== undefined) headers.set("content-length", String(new TextEncoder().encode(body).byteLength));
  const request = new Request(`http://gate.test${path}`, {
    ...init,
    headers,
    ...(body === undefined ? {} : { body, method: init.method ?? "POST" }),
  });
  const ctx = createExecutionContext();
  const keys = init.key === undefined ? {} : { GATE_API_KEYS: TEST_GATE_API_KEYS };
  const res = await worker.fetch(request, { ...env, ...keys, ...envOver } as Env, ctx);
  await res.clone().arrayBuffer();
  await waitOnExecutionContext(ctx);
  return res;
}

/**
 * The lines a console spy saw whose first argument contains `text`: what an
 * operator counts in Workers Logs.
 *
 * @example
 * expect(linesLogged(errors, "ledger write failed")).toHaveLength(1);
 */
export function linesLogged(spy: { mock: { calls: unknown[][] } }, text: string): string[] {
  return spy.mock.calls.map(([line]) => String(line)).filter((line) => line.includes(text));
}
