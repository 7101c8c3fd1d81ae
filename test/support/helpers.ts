import { env, exports } from "cloudflare:workers";
import { aliasKey, GATE_CONFIG_KEY, pricingKey } from "../../src/storage/rules/keys";
import { forgetWrittenShards } from "../../src/ledger";
import { forgetLearned } from "../../src/storage/learning";
import { forgetPricing } from "../../src/storage/read";
import type { PricingRow } from "../../src/storage/schemas/schema";

/** The worker under test, called through its real fetch handler in workerd. */
export function call(path: string, init: RequestInit = {}): Promise<Response> {
  return exports.default.fetch(new Request(`http://gate.test${path}`, init));
}

/**
 * The init of a JSON request: the body as JSON (a string is sent as it is),
 * its length declared as an HTTP client declares it (so gate requests take
 * the gate's direct path, src/routes/gate/direct/direct.ts), with any other headers.
 */
export function jsonInit(method: string, body: unknown, headers: Record<string, string> = {}): RequestInit {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const length = String(new TextEncoder().encode(text).byteLength);
  return { method, headers: { "content-type": "application/json", "content-length": length, ...headers }, body: text };
}

/** The Authorization header for a bearer token; none for undefined. */
export function bearer(token: string | undefined): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

/** POSTs a JSON body (or raw text) to a route. */
export function postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return call(path, jsonInit("POST", body, headers));
}

/** POST /v1/gate with a JSON body. */
export function postGate(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return postJson("/v1/gate", body, headers);
}

/** Writes a pricing row straight into the real local KV binding. */
export async function putRow(model: string, row: PricingRow | string): Promise<void> {
  await env.PRICING.put(pricingKey(model), typeof row === "string" ? row : JSON.stringify(row));
}

/** Writes an alias key straight into KV. */
export async function putAlias(alias: string, canonical: string): Promise<void> {
  await env.PRICING.put(aliasKey(alias), canonical);
}

/** Writes `config:gate` straight into KV: an object as JSON, a string as it is. */
export async function putGateConfig(config: object | string): Promise<void> {
  await env.PRICING.put(GATE_CONFIG_KEY, typeof config === "string" ? config : JSON.stringify(config));
}

/** Empties KV and the isolate's caches, so each test starts cold. */
export async function resetState(): Promise<void> {
  forgetPricing();
  forgetLearned();
  forgetWrittenShards();
  let cursor: string | undefined;
  do {
    const page = await env.PRICING.list(cursor === undefined ? {} : { cursor });
    await Promise.all(page.keys.map((key) => env.PRICING.delete(key.name)));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor !== undefined);
}

export { EXAMPLE_A, OPUS } from "../fixtures/rows";
