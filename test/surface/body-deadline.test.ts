import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { BODY_READ_TIMEOUT_MS, bodyDeadline, readBody } from "../../src/http/body";
import { OPUS, putRow, resetState } from "../support/helpers";
import { ALICE_TOKEN } from "../support/secrets";

// The body deadline (docs/api.md): a body that never arrives whole is answered 408 naming `body`, on every route that reads one.

const DEADLINE_MS = 100;

/** A body that sends its first bytes and then neither ends nor errors: a client that declared more than it sent. */
function neverEnding(first: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(first));
    },
  });
}

/** Calls the worker's own fetch (this module's instance, so the shortened deadline is the one in force). */
async function send(path: string, body: ReadableStream<Uint8Array> | string, headers: Record<string, string>) {
  const ctx = createExecutionContext();
  const init = { method: "POST", body, headers: { "content-type": "application/json", ...headers }, duplex: "half" };
  const started = Date.now();
  const res = await worker.fetch(new Request(`http://gate.test${path}`, init as RequestInit), env as Env, ctx);
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: JSON.parse(text), ms: Date.now() - started };
}

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  bodyDeadline.ms = DEADLINE_MS;
});
afterEach(() => {
  bodyDeadline.ms = BODY_READ_TIMEOUT_MS;
});

describe("a request body that never arrives whole", () => {
  const cases: [string, string, Record<string, string>][] = [
    ["the gate's direct path (a declared length)", "/v1/gate", { "content-length": "200" }],
    ["the batch's direct path", "/v1/gate/batch", { "content-length": "200" }],
    ["the Hono path of the gate (no declared length)", "/v1/gate", {}],
    ["an outcome report", "/v1/outcomes", { "content-length": "200" }],
    ["an admin write", "/v1/admin/pricing/claude-opus-4-6", { authorization: `Bearer ${ALICE_TOKEN}` }],
  ];

  it.each(cases)(
    "is answered 408 request_timeout naming body once the deadline passes: %s",
    async (_name, path, headers) => {
      const res = await send(path, neverEnding('{"model_name":'), headers);
      expect(res.status).toBe(408);
      expect(res.body).toEqual({
        error: {
          code: "request_timeout",
          message: `the request body did not arrive within ${DEADLINE_MS} ms`,
          issues: [{ path: "body", message: expect.stringContaining(`within ${DEADLINE_MS} ms`) }],
        },
      });
      // The shortened deadline ended the wait (a first request on the Hono path also loads its modules).
      expect(res.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 5);
      expect(res.ms).toBeLessThan(BODY_READ_TIMEOUT_MS);
    },
  );

  it("leaves a body that arrives in time answered as before, on both paths", async () => {
    const body = JSON.stringify({ model_name: "claude-opus-4-6", output_tokens: 20_000 });
    const length = String(new TextEncoder().encode(body).byteLength);
    const direct = await send("/v1/gate", body, { "content-length": length });
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(body));
        controller.close();
      },
    });
    const hono = await send("/v1/gate", streamed, {});
    expect([direct.status, hono.status]).toEqual([200, 200]);
    expect(hono.body.net_saving_usd).toBe(direct.body.net_saving_usd);
    expect(direct.body.fire).toBe(true);
  });

  it("keeps a body over the limit a 413 whether its length is declared or only streamed", async () => {
    const big = "x".repeat(200 * 1024);
    const declared = await send("/v1/outcomes", big, { "content-length": String(big.length) });
    const streamed = await send(
      "/v1/outcomes",
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big));
          controller.close();
        },
      }),
      {},
    );
    expect([declared.status, streamed.status]).toEqual([413, 413]);
    expect(streamed.body.error.code).toBe("payload_too_large");
  });
});

describe("the bounded reader's own options", () => {
  const tooLarge = () => new Error("too large");
  const chunked = (parts: string[]) =>
    new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = parts.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });

  it("gathers a body of declared length whole, byte for byte, however many chunks it came in", async () => {
    const parts = Array.from({ length: 50 }, (_, i) => `chunk ${i} é;`);
    const whole = new TextEncoder().encode(parts.join(""));
    const bytes = await readBody(chunked([...parts]), 1_000_000, tooLarge, { declaredBytes: whole.byteLength });
    expect(Buffer.from(bytes).equals(Buffer.from(whole))).toBe(true);
  });

  it("still stops a body of undeclared length at the limit, and one declared over it", async () => {
    await expect(readBody(chunked(["12345", "67890"]), 8, tooLarge)).rejects.toThrow("too large");
    await expect(readBody(chunked(["12345", "67890"]), 8, tooLarge, { declaredBytes: 10 })).rejects.toThrow(
      "too large",
    );
  });

  it("waits for a reader's own deadline instead of the gate's, then answers 408 naming body", async () => {
    const started = Date.now();
    const read = readBody(neverEnding("{"), 1_000, tooLarge, { declaredBytes: 200, deadlineMs: 3 * DEADLINE_MS });
    await expect(read).rejects.toMatchObject({ code: "request_timeout", issues: [{ path: "body" }] });
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * DEADLINE_MS - 5);
  });
});
