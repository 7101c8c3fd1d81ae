import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../src/index";
import { call } from "./helpers";
import { ALICE_TOKEN } from "./secrets";

/** Calls an admin route with a bearer token (Alice's unless given; null sends none). */
export function adminCall(method: string, path: string, body?: unknown, token: string | null = ALICE_TOKEN): Promise<Response> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  return call(path, { method, headers, ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }) });
}

/**
 * Calls the real app with the test env plus `overrides` (a secret set or
 * unset, another limiter): the same worker and KV, other configuration.
 */
export async function callWithEnv(overrides: Partial<Env>, path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const response = await worker.fetch(new Request(`http://gate.test${path}`, init), { ...env, ...overrides }, ctx);
  await waitOnExecutionContext(ctx);
  return response;
}

/** Init for a JSON request with an optional bearer token. */
export function jsonInit(method: string, body: unknown, token?: string): RequestInit {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return { method, headers, body: JSON.stringify(body) };
}
