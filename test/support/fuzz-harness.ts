/**
 * @module test/support/fuzz-harness
 *
 * Sending a fuzzed request through the app's own fetch handler, the properties every answer must have, and the hooks a fuzz file needs.
 *
 * @example
 * fc.assert(fc.asyncProperty(requestSpec, async (spec) => checkAnswer(spec, ...(await sendText(spec)))));
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, afterEach, beforeAll, beforeEach, expect, vi } from "vitest";
import worker from "../../src/index";
import { ApiError } from "../../src/http/errors";
import { ErrorSchema } from "../../src/routes/kernel/openapi/json";
import { OPUS, putRow, resetState } from "./helpers";
import { ADMIN_TOKEN, GATE_API_KEYS, GATE_KEY, GPT5_ROW, HTML_PATHS, SECRETS, putPending } from "./fuzz-routes";
import { type RequestSpec, toRequest } from "./fuzz-requests";

export const unhandled: unknown[] = [];
export const onUnhandled = (event: PromiseRejectionEvent) => unhandled.push(event.reason);

/** Sends one request through the app's own fetch handler, with the secrets set. */
export async function send(spec: RequestSpec): Promise<{ res: Response; text: string }> {
  const secrets = { ADMIN_TOKEN, ...(spec.gateKeysConfigured ? { GATE_API_KEYS } : {}) };
  const ctx = createExecutionContext();
  const res = await worker.fetch(toRequest(spec), { ...env, ...secrets } as Env, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { res, text };
}

/** Every property the API promises for any request at all. */
export function checkAnswer(spec: RequestSpec, res: Response, text: string): void {
  const { status } = res;
  const route = new URL(`http://gate.test${spec.path}`).pathname;
  expect(status >= 500, `${status} for ${spec.method} ${spec.path}: ${text.slice(0, 300)}`).toBe(false);
  expect((status >= 200 && status < 300) || (status >= 400 && status < 500), `status ${status}`).toBe(true);

  for (const secret of SECRETS) expect(text).not.toContain(secret);
  const token = spec.authorization?.match(/tok_[0-9a-f]+/)?.[0];
  if (token !== undefined) expect(text).not.toContain(token);

  if (status === 405) expect(res.headers.get("allow")).toBeTruthy();
  if (status === 401) expect(res.headers.get("www-authenticate")).toBeTruthy();

  if (spec.method === "HEAD" || status === 204) return;
  const type = res.headers.get("content-type") ?? "";
  if (status < 300 && type.startsWith("text/html")) {
    expect(HTML_PATHS.has(route), `HTML from ${route}`).toBe(true);
    return;
  }
  expect(type).toMatch(/^application\/json/);
  const body: unknown = JSON.parse(text);
  if (status >= 400) {
    const error = ErrorSchema.strict().parse(body);
    // The code is one the API documents, and it maps to this very status.
    expect(new ApiError(error.error.code as never, "").status).toBe(status);
    expect(error.error.message.length).toBeGreaterThan(0);
  }
}

/** A POST /v1/gate that passes authentication; the body is the case's. */
export const WELL_FORMED: RequestSpec = {
  method: "POST",
  path: "/v1/gate",
  contentType: "application/json",
  authorization: `Bearer ${GATE_KEY}`,
  body: "",
  gateKeysConfigured: true,
};

/**
 * Registers a fuzz file's hooks: unhandled rejections collected, local KV
 * reset to the rows and the pending change a run starts from, spies restored.
 *
 * @example
 * useFuzzHarness();
 */
export function useFuzzHarness(): void {
  beforeAll(() => {
    addEventListener("unhandledrejection", onUnhandled);
  });
  afterAll(() => {
    removeEventListener("unhandledrejection", onUnhandled);
  });
  beforeEach(async () => {
    await resetState();
    await putRow("claude-opus-4-6", OPUS);
    await putRow("gpt-5", GPT5_ROW);
    await putPending();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
}
