import { afterEach, describe, expect, it, vi } from "vitest";
import type { ErrorBody } from "../../src/http";
import { PROD_KEY } from "../support/secrets";
import {
  GATE_URL as URL_BASE,
  MOCK_ANTHROPIC,
  MOCK_OPENAI,
  mockProvider,
  proxyCall,
  proxyPost,
  sse,
  text,
} from "./proxy-support";
const MESSAGE = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content: [{ type: "text", text: "hello" }],
  stop_reason: "end_turn",
  usage: { input_tokens: 12, output_tokens: 3 },
};
// Odd spacing and key order on purpose: re-serialised JSON would not keep them.
const ODD_BODY =
  '{ "model":"claude-sonnet-4-5",  "max_tokens": 16,\n "messages":[{"role":"user","content":"h\\u00e9llo"}] }';

function post(path: string, body: string | Uint8Array, headers: Record<string, string> = {}): Request {
  return proxyPost(path, body, { "x-api-key": "sk-ant-test-secret", ...headers });
}

afterEach(() => vi.restoreAllMocks());

/** The error of an answer in the one error shape. */
async function errorOf(res: Response): Promise<ErrorBody["error"]> {
  return ((await res.json()) as ErrorBody).error;
}

describe("the proxy's pass-through", () => {
  it("sends the request's body bytes upstream exactly as the client sent them, with the provider key untouched and the gate key removed", async () => {
    const mock = mockProvider(() => Response.json(MESSAGE));
    const res = await proxyCall(
      post("/proxy/anthropic/v1/messages?beta=true", ODD_BODY, { "x-offload-gate-key": PROD_KEY }),
    );
    expect(res.status).toBe(200);
    expect(mock.received).toHaveLength(1);
    const got = mock.received[0]!;
    expect(got.url).toBe(`${MOCK_ANTHROPIC}/v1/messages?beta=true`);
    expect(text(got.bytes)).toBe(ODD_BODY);
    expect(got.headers.get("x-api-key")).toBe("sk-ant-test-secret");
    expect(got.headers.has("x-offload-gate-key")).toBe(false);
    expect(await res.json()).toEqual(MESSAGE);
  });

  it("takes the gate key from the path form and sends the path upstream without it", async () => {
    const mock = mockProvider(() => Response.json({ object: "list", data: [] }));
    const res = await proxyCall(
      new Request(`${URL_BASE}/proxy/k/${PROD_KEY}/openai/v1/models`, {
        headers: { authorization: "Bearer sk-openai" },
      }),
    );
    expect(res.status).toBe(200);
    expect(mock.received[0]!.url).toBe(`${MOCK_OPENAI}/v1/models`);
    expect(mock.received[0]!.headers.get("authorization")).toBe("Bearer sk-openai");
  });

  it("answers an unknown or missing gate key with 401 in the one error shape before anything goes upstream", async () => {
    const mock = mockProvider(() => Response.json(MESSAGE));
    const missing = await proxyCall(post("/proxy/anthropic/v1/messages", ODD_BODY));
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({
      error: { code: "unauthorized", issues: [{ path: "x-offload-gate-key", message: "is required" }] },
    });
    const wrong = await proxyCall(
      post("/proxy/anthropic/v1/messages", ODD_BODY, { "x-offload-gate-key": "not-a-key-0123456789" }),
    );
    expect(wrong.status).toBe(401);
    const body = await wrong.text();
    expect(body).not.toContain("sk-ant-test-secret");
    expect(JSON.parse(body).error.issues[0].path).toBe("x-offload-gate-key");
    const wrongPath = await proxyCall(post("/proxy/k/not-a-key-0123456789/anthropic/v1/messages", ODD_BODY));
    expect((await errorOf(wrongPath)).issues[0]?.path).toBe("path");
    expect(mock.spy).not.toHaveBeenCalled();
  });

  it("streams server-sent events to the client as they arrive, never buffering the whole answer", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = sse([
      { event: "message_start", data: { type: "message_start", message: { ...MESSAGE, content: [] } } },
    ]);
    const rest = sse([
      {
        event: "message_delta",
        data: { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } },
      },
      { event: "message_stop", data: { type: "message_stop" } },
    ]);
    mockProvider(
      () =>
        new Response(
          new ReadableStream({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode(first));
              await held;
              controller.enqueue(new TextEncoder().encode(rest));
              controller.close();
            },
          }),
          { headers: { "content-type": "text/event-stream" } },
        ),
    );
    const res = await proxyCall(
      post("/proxy/anthropic/v1/messages", ODD_BODY, { "x-offload-gate-key": PROD_KEY }),
      {},
      { wait: false },
    );
    const reader = res.body!.getReader();
    const chunk = await reader.read();
    // The first event reached the client while the provider still held the rest.
    expect(text(chunk.value!)).toBe(first);
    release();
    let tail = "";
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      tail += text(next.value);
    }
    expect(tail).toBe(rest);
  });

  it("passes a provider's error through unchanged: status, its headers and its body", async () => {
    const error = '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}';
    mockProvider(
      () =>
        new Response(error, {
          status: 429,
          headers: {
            "content-type": "application/json",
            "retry-after": "7",
            "request-id": "req_123",
            "x-should-retry": "true",
          },
        }),
    );
    const res = await proxyCall(post("/proxy/anthropic/v1/messages", ODD_BODY, { "x-offload-gate-key": PROD_KEY }));
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.headers.get("request-id")).toBe("req_123");
    expect(await res.text()).toBe(error);
  });

  it("sends a body that is not JSON on unchanged and returns the provider's own answer to it", async () => {
    const mock = mockProvider(() => new Response('{"error":{"message":"bad json"}}', { status: 400 }));
    const res = await proxyCall(
      post("/proxy/openai/v1/chat/completions", "{not json", { "x-offload-gate-key": PROD_KEY }),
    );
    expect(res.status).toBe(400);
    expect(text(mock.received[0]!.bytes)).toBe("{not json");
    expect(await res.text()).toBe('{"error":{"message":"bad json"}}');
  });

  it("hands a redirect back to the client and never follows it", async () => {
    const mock = mockProvider(
      () => new Response(null, { status: 307, headers: { location: "https://elsewhere.example/v1/messages" } }),
    );
    const res = await proxyCall(post("/proxy/anthropic/v1/messages", ODD_BODY, { "x-offload-gate-key": PROD_KEY }));
    expect(res.status).toBe(307);
    expect(res.headers.get("location")).toBe("https://elsewhere.example/v1/messages");
    expect(mock.spy).toHaveBeenCalledTimes(1);
    expect(mock.spy.mock.calls[0]![1]).toMatchObject({ redirect: "manual" });
  });

  it("answers an upstream that cannot be reached with 503 in the one error shape, once, with no retry", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const mock = mockProvider(() => {
      throw new TypeError("connection refused");
    });
    const res = await proxyCall(post("/proxy/anthropic/v1/messages", ODD_BODY, { "x-offload-gate-key": PROD_KEY }));
    expect(res.status).toBe(503);
    const body = await res.text();
    expect(JSON.parse(body).error.code).toBe("unavailable");
    expect(body).not.toContain("sk-ant-test-secret");
    expect(mock.spy).toHaveBeenCalledTimes(1);
    expect(errors.mock.calls.flat().join(" ")).not.toContain("sk-ant-test-secret");
  });

  it("waits for a slow upstream as long as the client does, and streams its answer when it comes", async () => {
    mockProvider(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return Response.json(MESSAGE);
    });
    const res = await proxyCall(post("/proxy/anthropic/v1/messages", ODD_BODY, { "x-offload-gate-key": PROD_KEY }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(MESSAGE);
  });
});

describe("the proxy's own refusals", () => {
  it("answers an unknown path with 404 naming the path, and a wrong method with 405 and Allow", async () => {
    const mock = mockProvider(() => Response.json({}));
    const unknown = await proxyCall(post("/proxy/anthropic/v1/files", "{}", { "x-offload-gate-key": PROD_KEY }));
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).issues[0]?.path).toBe("path");
    const provider = await proxyCall(post("/proxy/gemini/v1/models", "{}", { "x-offload-gate-key": PROD_KEY }));
    expect(provider.status).toBe(404);
    const climbing = await proxyCall(
      post("/proxy/anthropic/v1/messages/../../admin", "{}", { "x-offload-gate-key": PROD_KEY }),
    );
    expect(climbing.status).toBe(404);
    const method = await proxyCall(new Request(`${URL_BASE}/proxy/anthropic/v1/messages`, { method: "GET" }));
    expect(method.status).toBe(405);
    expect(method.headers.get("allow")).toBe("POST");
    expect(mock.spy).not.toHaveBeenCalled();
  });

  it("refuses a body over the provider's size limit with 413 naming the body, unsent", async () => {
    const mock = mockProvider(() => Response.json({}));
    const declared = await proxyCall(
      new Request(`${URL_BASE}/proxy/anthropic/v1/messages`, {
        method: "POST",
        headers: { "x-offload-gate-key": PROD_KEY, "content-length": "40000000" },
        body: "{}",
      }),
    );
    expect(declared.status).toBe(413);
    expect(await errorOf(declared)).toMatchObject({ code: "payload_too_large", issues: [{ path: "body" }] });
    const big = new Uint8Array(32_000_001).fill(0x20);
    const sent = await proxyCall(
      post("/proxy/anthropic/v1/messages", big, {
        "x-offload-gate-key": PROD_KEY,
        "content-length": String(big.length),
      }),
    );
    expect(sent.status).toBe(413);
    expect(mock.spy).not.toHaveBeenCalled();
  });

  it("streams a body of undeclared length upstream as it arrives, and leaves its limit to the provider", async () => {
    const mock = mockProvider(() => new Response('{"type":"error"}', { status: 413 }));
    const chunks = ['{"model":"claude-sonnet-4-5",', '"messages":[]}'];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const res = await proxyCall(
      new Request(`${URL_BASE}/proxy/anthropic/v1/messages`, {
        method: "POST",
        headers: { "x-offload-gate-key": PROD_KEY },
        body,
      }),
    );
    // The provider's own answer, and the bytes the client streamed.
    expect(res.status).toBe(413);
    expect(text(mock.received[0]!.bytes)).toBe('{"model":"claude-sonnet-4-5","messages":[]}');
  });

  it("refuses to send anywhere but a checked upstream: an http host off loopback is the operator's 503, logged once", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const mock = mockProvider(() => Response.json({}));
    for (let i = 0; i < 2; i++) {
      const res = await proxyCall(post("/proxy/anthropic/v1/messages", ODD_BODY, { "x-offload-gate-key": PROD_KEY }), {
        ANTHROPIC_UPSTREAM: "http://10.0.0.5",
      });
      expect(res.status).toBe(503);
      expect((await errorOf(res)).issues[0]?.path).toBe("ANTHROPIC_UPSTREAM");
    }
    expect(mock.spy).not.toHaveBeenCalled();
    expect(errors.mock.calls.filter(([line]) => String(line).includes("ANTHROPIC_UPSTREAM"))).toHaveLength(1);
  });
});
