import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../../src/http/errors";
import worker from "../../src/index";
import { PROXY_OPERATIONS } from "../../src/proxy";
import { ErrorSchema } from "../../src/routes/kernel/openapi/json";
import { GATE_API_KEYS, GATE_KEY, SECRETS, SEED } from "../support/fuzz-routes";
import { runs } from "../support/runs";

// Property-based fuzzing of the proxy's surface, in workerd, against the
// real worker: arbitrary methods, paths (the table's, near misses, climbs,
// encodings), gate keys (header, path, wrong, none) and bodies (provider
// requests with tool results, JSON of any shape, bytes). Behind it a mock
// provider answers every request it gets. Whatever is sent: the proxy
// never answers 5xx of its own, never leaks a key, and either passes the
// exchange through byte for byte or refuses it, before anything goes
// upstream, in the one error shape.

const PROVIDER_KEY = "sk-provider-s3cret-5e1f";
const NUM_RUNS = runs(400);

const templatePath = fc
  .constantFrom(...PROXY_OPERATIONS)
  .chain((operation) =>
    fc
      .stringMatching(/^[A-Za-z0-9_.:-]{1,24}$/)
      .map((id) => `/${operation.provider}${operation.path.replace(/\{\w+\}/g, id)}`),
  );
const nearMiss = fc.oneof(
  fc.constantFrom(
    "/anthropic/v1/messages/",
    "/anthropic/v1/messages/../../v1/admin/pricing",
    "/anthropic/v1/%2e%2e/admin",
    "/openai/v1/files",
    "/openai/v1/chat/completions%00",
    "/gemini/v1/models",
    "/anthropic",
    "",
    "/k/",
  ),
  fc.webPath().map((path) => `/anthropic${path}`),
  fc.string({ maxLength: 30 }).map((text) => `/openai/v1/${encodeURIComponent(text)}`),
);
const keyForm = fc.constantFrom("header", "path", "wrong-header", "wrong-path", "none");
const toolTurn = fc.record({
  model: fc.constantFrom("claude-sonnet-4-5", "gpt-5", "unpriced-model", ""),
  output: fc.string({ maxLength: 2_000 }),
  stream: fc.boolean(),
});
const body = fc.oneof(
  toolTurn.map(({ model, output, stream }) =>
    JSON.stringify({
      model,
      stream,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: output }] },
      ],
      input: [{ type: "function_call_output", call_id: "c1", output }],
    }),
  ),
  fc.json(),
  fc.string({ maxLength: 200 }),
  fc.constant(""),
);
const spec = fc.record({
  method: fc.constantFrom("GET", "POST", "POST", "POST", "DELETE", "PUT", "PATCH", "OPTIONS"),
  path: fc.oneof({ weight: 3, arbitrary: templatePath }, { weight: 2, arbitrary: nearMiss }),
  key: keyForm,
  body,
  stream: fc.boolean(),
});

afterEach(() => vi.restoreAllMocks());

describe("the proxy under fuzzing", () => {
  it(`answers ${NUM_RUNS} arbitrary requests by passing them through unchanged or refusing them in the error shape, never a 5xx or a key`, async () => {
    const received: Uint8Array[] = [];
    const answer = '{"ok":true}';
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const request = new Request(input, init);
      received.push(new Uint8Array(await request.arrayBuffer()));
      return new Response(answer, { headers: { "content-type": "application/json" } });
    });
    const logged = vi.spyOn(console, "error");
    await fc.assert(
      fc.asyncProperty(spec, async (s) => {
        received.length = 0;
        const keyed = s.key === "path" ? `/k/${GATE_KEY}` : s.key === "wrong-path" ? "/k/not-the-key-0000000000" : "";
        const headers: Record<string, string> = { "x-api-key": PROVIDER_KEY, "content-type": "application/json" };
        if (s.key === "header") headers["x-offload-gate-key"] = GATE_KEY;
        if (s.key === "wrong-header") headers["x-offload-gate-key"] = "not-the-key-0000000000";
        const withBody = s.method !== "GET" && s.method !== "OPTIONS";
        const request = new Request(`http://gate.test/proxy${keyed}${s.path}`, {
          method: s.method,
          headers,
          ...(withBody ? { body: s.body } : {}),
        });
        const ctx = createExecutionContext();
        const res = await worker.fetch(
          request,
          {
            ...env,
            GATE_API_KEYS,
            ANTHROPIC_UPSTREAM: "http://127.0.0.1:9",
            OPENAI_UPSTREAM: "http://127.0.0.1:9",
          } as unknown as Env,
          ctx,
        );
        const text = await res.text();
        await waitOnExecutionContext(ctx);
        expect(res.status, text).toBeLessThan(500);
        for (const secret of [...SECRETS, PROVIDER_KEY]) expect(text).not.toContain(secret);
        if (received.length === 1) {
          // Passed through: the provider got the body as sent, the client the provider's answer.
          expect(res.status).toBe(200);
          expect(text).toBe(answer);
          expect(new TextDecoder().decode(received[0])).toBe(withBody ? s.body : "");
          return;
        }
        expect(received).toHaveLength(0);
        expect(res.status).toBeGreaterThanOrEqual(400);
        const error = ErrorSchema.strict().parse(JSON.parse(text));
        expect(new ApiError(error.error.code as never, "").status).toBe(res.status);
        if (res.status === 405) expect(res.headers.get("allow")).toBeTruthy();
        if (res.status === 401) expect(res.headers.get("www-authenticate")).toBeTruthy();
      }),
      { seed: SEED, numRuns: NUM_RUNS },
    );
    // The proxy's own work failed nowhere, and no log line carries a key.
    const lines = logged.mock.calls.map((call) => call.map(String).join(" "));
    expect(lines.filter((line) => line.includes("proxy:"))).toEqual([]);
    for (const line of lines) for (const secret of [...SECRETS, PROVIDER_KEY]) expect(line).not.toContain(secret);
  }, 120_000);
});

// Enforce mode's own inputs: Messages and Chat Completions bodies of any
// shape, sessions seen from their start or not, tool results of any size and
// content. Whatever comes, the request goes upstream once, as sent or
// rewritten into JSON that still names the recall tool last, and the answer
// (here never a recall) comes back as the provider sent it.
const enforcedBody = fc.oneof(
  fc
    .record({
      model: fc.constantFrom("claude-sonnet-4-5", "gpt-5", "unpriced-model"),
      start: fc.boolean(),
      output: fc.oneof(fc.string({ maxLength: 100 }), fc.constant("z".repeat(60_000)), fc.jsonValue()),
      chat: fc.boolean(),
      extra: fc.dictionary(fc.constantFrom("stream", "tools", "context_management", "system"), fc.jsonValue(), {
        maxKeys: 2,
      }),
    })
    .map(({ model, start, output, chat, extra }) => {
      const messages = chat
        ? [
            { role: "user", content: "go" },
            ...(start
              ? []
              : [
                  {
                    role: "assistant",
                    tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }],
                  },
                  { role: "tool", tool_call_id: "c1", content: output },
                ]),
          ]
        : [
            { role: "user", content: "go" },
            ...(start
              ? []
              : [
                  { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: {} }] },
                  { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: output }] },
                ]),
          ];
      return { chat, text: JSON.stringify({ model, messages, ...extra }) };
    }),
  fc.record({ chat: fc.boolean(), text: fc.oneof(fc.json(), fc.string({ maxLength: 200 })) }),
);

describe("enforce mode under fuzzing", () => {
  it(`sends each of ${NUM_RUNS} arbitrary provider requests upstream once, as sent or rewritten with the recall tool, never a 5xx`, async () => {
    const received: Uint8Array[] = [];
    const answer = '{"ok":true}';
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      received.push(new Uint8Array(await new Request(input, init).arrayBuffer()));
      return new Response(answer, { headers: { "content-type": "application/json" } });
    });
    await fc.assert(
      fc.asyncProperty(
        enforcedBody,
        fc.stringMatching(/^[a-z0-9]{1,6}$/),
        async ({ chat, text: sentText }, session) => {
          received.length = 0;
          const path = chat ? "/openai/v1/chat/completions" : "/anthropic/v1/messages";
          const request = new Request(`http://gate.test/proxy${path}`, {
            method: "POST",
            headers: {
              "x-api-key": PROVIDER_KEY,
              "content-type": "application/json",
              "x-offload-gate-key": GATE_KEY,
              "x-offload-session-id": `fuzz-${session}`,
            },
            body: sentText,
          });
          const ctx = createExecutionContext();
          const res = await worker.fetch(
            request,
            {
              ...env,
              GATE_API_KEYS,
              PROXY_MODE: "enforce",
              ANTHROPIC_UPSTREAM: "http://127.0.0.1:9",
              OPENAI_UPSTREAM: "http://127.0.0.1:9",
            } as unknown as Env,
            ctx,
          );
          const text = await res.text();
          await waitOnExecutionContext(ctx);
          expect(res.status, text).toBe(200);
          expect(text).toBe(answer);
          expect(received).toHaveLength(1);
          const upstream = new TextDecoder().decode(received[0]);
          if (upstream === sentText) return;
          const rewritten = JSON.parse(upstream) as { tools: { name?: string; function?: { name: string } }[] };
          const last = rewritten.tools[rewritten.tools.length - 1]!;
          expect(last.name ?? last.function?.name).toBe("recall_tool_output");
        },
      ),
      { seed: SEED, numRuns: NUM_RUNS },
    );
  }, 120_000);
});
