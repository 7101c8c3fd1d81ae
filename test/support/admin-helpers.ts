import { expect } from "vitest";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import { bearer, call, jsonInit } from "./helpers";
import { ALICE_TOKEN } from "./secrets";

/** Calls an admin route with a bearer token (Alice's unless given; null sends none). */
export function adminCall(
  method: string,
  path: string,
  body?: unknown,
  token: string | null = ALICE_TOKEN,
): Promise<Response> {
  const headers = bearer(token ?? undefined);
  return call(path, body === undefined ? { method, headers } : jsonInit(method, body, headers));
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

/**
 * Asserts an admin call was refused as invalid, with an issue at `path`
 * whose message holds `fragment`.
 *
 * @example
 * await expect400(await adminCall("PUT", "/v1/admin/pricing/gpt-5", { input: -1 }), "input", "negative");
 */
export async function expect400(res: Response, path: string, fragment: string): Promise<void> {
  expect(res.status).toBe(400);
  const body = await res.json<any>();
  expect(body.error.code).toBe("invalid_request");
  const issue = body.error.issues.find((candidate: { path: string }) => candidate.path === path);
  expect(issue, JSON.stringify(body.error.issues)).toBeDefined();
  expect(issue.message).toContain(fragment);
}
