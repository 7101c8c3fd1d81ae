import Anthropic from "@anthropic-ai/sdk";
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sessionHeldOut } from "../../src/proxy/enforce";
import { ledgerSessionBase } from "../../src/proxy/observe";
import { SONNET_45 } from "../fixtures/rows";
import { putGateConfig, putRow, resetState } from "../support/helpers";
import { PROD_KEY } from "../support/secrets";
import {
  BIG_FILE,
  ENFORCE,
  mockProvider,
  proxyCall,
  type Received,
  sdkFetch,
  type Sent as SdkSent,
  settle,
  sharedPrefix,
  sse,
  text,
  UNIQUE,
} from "./proxy-support";

// Enforce mode on Anthropic's Messages API, against a mock provider: a big
// tool result is stubbed on its way up, the model calls the recall tool,
// the proxy answers it with the original and asks again, and the client
// gets one answer. Every later request of the session carries the same
// stub and the recall exchange where it happened, so each request starts
// with the bytes of the one before.

const MODEL = "claude-sonnet-4-5";

const user = (content: string) => ({ role: "user", content });
const readCall = (id: string) => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name: "Read", input: { file_path: "src/budget.ts" } }],
});
const readResult = (id: string, content = BIG_FILE) => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content }],
});
const TOOLS = [{ name: "Read", description: "Reads a file", input_schema: { type: "object" } }];

function messagesRequest(session: string, messages: object[], extra: Record<string, unknown> = {}): Request {
  const body = JSON.stringify({
    model: MODEL,
    max_tokens: 256,
    system: "You are terse.",
    tools: TOOLS,
    messages,
    ...extra,
  });
  return new Request("http://gate.test/proxy/anthropic/v1/messages", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": "sk-ant-test",
      "x-offload-gate-key": PROD_KEY,
      "x-offload-session-id": session,
    },
    body,
  });
}

interface Sent {
  messages: { role: string; content: unknown }[];
  tools: { name: string }[];
  stream?: boolean;
}

const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

/** An answer as a JSON body, or as the stream of events that carries it. */
function answer(content: Record<string, unknown>[], stop: string, stream: boolean): Response {
  const message = { id: "msg_1", type: "message", role: "assistant", model: MODEL, content, stop_reason: stop, usage };
  if (!stream) return Response.json(message);
  const events: { event: string; data: unknown }[] = [
    {
      event: "message_start",
      data: { type: "message_start", message: { ...message, content: [], stop_reason: null } },
    },
  ];
  content.forEach((block, index) => {
    if (block.type === "tool_use") {
      events.push({
        event: "content_block_start",
        data: { type: "content_block_start", index, content_block: { ...block, input: {} } },
      });
      const json = JSON.stringify(block.input);
      for (const part of [json.slice(0, 5), json.slice(5)])
        events.push({
          event: "content_block_delta",
          data: { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: part } },
        });
    } else {
      events.push({
        event: "content_block_start",
        data: { type: "content_block_start", index, content_block: { type: "text", text: "" } },
      });
      events.push({
        event: "content_block_delta",
        data: { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } },
      });
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: { type: "message_delta", delta: { stop_reason: stop }, usage: { output_tokens: 5 } },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return new Response(sse(events), { headers: { "content-type": "text/event-stream" } });
}

/**
 * A model that reads the file when asked, calls the recall tool when it sees
 * a stub, and answers from the original once it has it.
 */
function model(received: Received): Response {
  const body = JSON.parse(text(received.bytes)) as Sent;
  const stream = body.stream === true;
  const last = body.messages[body.messages.length - 1]!;
  const blocks = Array.isArray(last.content) ? (last.content as Record<string, unknown>[]) : [];
  const result = blocks.find((block) => block.type === "tool_result");
  if (typeof last.content === "string" && last.content.startsWith("read"))
    return answer(
      [{ type: "tool_use", id: "toolu_read", name: "Read", input: { file_path: "src/budget.ts" } }],
      "tool_use",
      stream,
    );
  if (result !== undefined && typeof result.content === "string" && result.content.startsWith("[offloaded:"))
    return answer(
      [
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "toolu_recall", name: "recall_tool_output", input: { id: "toolu_read" } },
      ],
      "tool_use",
      stream,
    );
  if (result !== undefined && typeof result.content === "string" && result.content.includes(UNIQUE))
    return answer([{ type: "text", text: `It says: ${UNIQUE}` }], "end_turn", stream);
  return answer([{ type: "text", text: "You are welcome." }], "end_turn", stream);
}

beforeEach(async () => {
  await resetState();
  await putRow(MODEL, SONNET_45);
});
afterEach(() => vi.restoreAllMocks());

describe.each([false, true])("enforce mode on Messages (streamed: %s)", (stream) => {
  it("stubs a big tool result, resolves the model's recall itself, and hands the client one answer", async () => {
    const session = `sess-enforce-${stream}`;
    const { received } = mockProvider(model);
    const extra = { stream };
    const first = await proxyCall(messagesRequest(session, [user("read the budget")], extra), ENFORCE);
    expect(first.status).toBe(200);
    const sentFirst = JSON.parse(text(received[0]!.bytes)) as Sent;
    // The recall tool is there from the session's first request on.
    expect(sentFirst.tools.map((tool) => tool.name)).toEqual(["Read", "recall_tool_output"]);

    const turn2 = [user("read the budget"), readCall("toolu_read"), readResult("toolu_read")];
    const second = await proxyCall(messagesRequest(session, turn2, extra), ENFORCE);
    expect(second.status).toBe(200);
    const seen = await second.text();
    // The client sees the final answer only: no recall call, no error.
    expect(seen).toContain(UNIQUE);
    expect(seen).not.toContain("recall_tool_output");
    expect(received).toHaveLength(3);
    const stubbed = JSON.parse(text(received[1]!.bytes)) as Sent;
    const stub = (stubbed.messages[2]!.content as { content: string }[])[0]!.content;
    expect(stub).toBe(
      `[offloaded: the output of Read call toolu_read (${BIG_FILE.length.toLocaleString("en-US")} chars) is not shown; call recall_tool_output with {"id":"toolu_read"} to read it]`,
    );
    // The proxy's own second call: the recall and the original appended, after the bytes of the first.
    const recalled = JSON.parse(text(received[2]!.bytes)) as Sent;
    expect(recalled.messages.slice(3).map((message) => message.role)).toEqual(["assistant", "user"]);
    expect((recalled.messages[4]!.content as { content: string }[])[0]!.content).toBe(BIG_FILE);

    const turn3 = [
      ...turn2,
      { role: "assistant", content: [{ type: "text", text: `It says: ${UNIQUE}` }] },
      user("thanks"),
    ];
    await proxyCall(messagesRequest(session, turn3, extra), ENFORCE);
    const later = JSON.parse(text(received[3]!.bytes)) as Sent;
    // The stub stays, and the recall exchange is back where it happened, byte for byte.
    expect(later.messages.slice(0, 5)).toEqual(recalled.messages);
    expect(later.messages).toHaveLength(7);
    // Every byte of the recall call's messages is a prefix the next request starts with: the cache reads it all.
    const before = text(received[2]!.bytes);
    const messages = JSON.stringify(recalled.messages);
    const through = before.indexOf(messages) + messages.length - 1;
    expect(before.indexOf(messages)).toBeGreaterThan(0);
    expect(sharedPrefix(received[3]!.bytes, received[2]!.bytes)).toBeGreaterThanOrEqual(through);
    expect(sharedPrefix(received[2]!.bytes, received[1]!.bytes)).toBeGreaterThanOrEqual(
      text(received[1]!.bytes).indexOf(JSON.stringify(stubbed.messages)) + JSON.stringify(stubbed.messages).length - 1,
    );
  });
});

describe("the Anthropic SDK through an enforcing proxy", () => {
  it.each([false, true])(
    "runs a session whose big tool output is stubbed and recalled, and sees neither the stub nor the recall (streamed: %s)",
    async (stream) => {
      const { received } = mockProvider(model);
      const sent: SdkSent[] = [];
      const client = new Anthropic({
        apiKey: "sk-ant-test",
        baseURL: "http://gate.test/proxy/anthropic",
        defaultHeaders: { "x-offload-gate-key": PROD_KEY, "x-offload-session-id": `sess-sdk-${stream}` },
        fetch: sdkFetch(sent, ENFORCE),
        maxRetries: 0,
      });
      const messages: Anthropic.MessageParam[] = [{ role: "user", content: "read the budget" }];
      const ask = async () => {
        const params = {
          model: MODEL,
          max_tokens: 256,
          system: "You are terse.",
          tools: TOOLS as Anthropic.Tool[],
          messages,
        };
        return stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
      };
      const first = await ask();
      const call = first.content.find((block) => block.type === "tool_use")!;
      expect(call.name).toBe("Read");
      messages.push({ role: "assistant", content: first.content });
      messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: BIG_FILE }] });
      const second = await ask();
      await settle();
      // The SDK gets the answer the original made possible, and nothing of the recall.
      expect(second.stop_reason).toBe("end_turn");
      expect(second.content.map((block) => (block.type === "text" ? block.text : block.type))).toEqual([
        `It says: ${UNIQUE}`,
      ]);
      // Upstream: the stub went up, the model recalled, the proxy answered it with the original.
      expect(received).toHaveLength(3);
      expect(text(received[1]!.bytes)).toContain("[offloaded: the output of Read call toolu_read");
      expect(text(received[1]!.bytes)).not.toContain(UNIQUE);
      expect(text(received[2]!.bytes)).toContain(UNIQUE);
      expect(text(sent[1]!.bytes)).not.toContain("[offloaded:");
    },
  );
});

describe("originals the client no longer sends", () => {
  it("answers a recall from the store once the client has cleared its own copy, and puts the recall back byte for byte", async () => {
    const session = "sess-enforce-cleared";
    const { received } = mockProvider(model);
    const turn2 = [user("read the budget"), readCall("toolu_read"), readResult("toolu_read")];
    await proxyCall(messagesRequest(session, [user("read the budget")]), ENFORCE);
    await proxyCall(messagesRequest(session, turn2), ENFORCE);
    const recalled = JSON.parse(text(received[2]!.bytes)) as Sent;
    // The client's own compaction clears the old output; the proxy's copy still answers for it.
    const cleared = [
      user("read the budget"),
      readCall("toolu_read"),
      readResult("toolu_read", "[Old tool result content cleared]"),
    ];
    const answer = { role: "assistant", content: [{ type: "text", text: `It says: ${UNIQUE}` }] };
    await proxyCall(messagesRequest(session, [...cleared, answer, user("thanks")]), ENFORCE);
    const later = JSON.parse(text(received[3]!.bytes)) as Sent;
    expect(later.messages.slice(0, 5)).toEqual(recalled.messages);
    expect((later.messages[4]!.content as { content: string }[])[0]!.content).toBe(BIG_FILE);
  });

  it("answers a recall of an id that was never stubbed plainly, and the client still gets one answer", async () => {
    const session = "sess-enforce-unknown-id";
    let calls = 0;
    const { received } = mockProvider((got) => {
      calls += 1;
      const body = JSON.parse(text(got.bytes)) as Sent;
      const last = body.messages[body.messages.length - 1]!;
      const blocks = Array.isArray(last.content) ? (last.content as Record<string, unknown>[]) : [];
      if (blocks.some((block) => block.tool_use_id === "toolu_r"))
        return answer([{ type: "text", text: String(blocks[0]!.content) }], "end_turn", false);
      return answer(
        [{ type: "tool_use", id: "toolu_r", name: "recall_tool_output", input: { id: "toolu_nope" } }],
        "tool_use",
        false,
      );
    });
    await proxyCall(messagesRequest(session, [user("hello")]), ENFORCE);
    const res = await proxyCall(messagesRequest(session, [user("hello"), readCall("t1"), readResult("t1")]), ENFORCE);
    const body = (await res.json()) as { content: { text: string }[] };
    // One call for the first request (nothing stubbed: its answer went to the client as it came), two for the second.
    expect(calls).toBe(3);
    expect(body.content[0]!.text).toBe("No tool output with that id was offloaded in this conversation.");
    expect(text(received[2]!.bytes)).toContain('"tool_use_id":"toolu_r"');
  });
});

describe("what an enforced session reports", () => {
  it("reports each enforced decision's outcome once the session is idle: the recall counted exactly, in the savings report", async () => {
    const session = "sess-enforce-report";
    mockProvider(model);
    const turn2 = [user("read the budget"), readCall("toolu_read"), readResult("toolu_read")];
    const turn3 = [...turn2, { role: "assistant", content: [{ type: "text", text: "It says." }] }, user("thanks")];
    for (const messages of [[user("read the budget")], turn2, turn3])
      await proxyCall(messagesRequest(session, messages), ENFORCE);
    const store = env.PROXY_ENFORCE.get(
      env.PROXY_ENFORCE.idFromName(`agents-prod/${ledgerSessionBase(session, MODEL)}`),
    );
    expect(await store.outcomes()).toEqual([
      { decision_id: expect.stringMatching(/^dec_/), turns_after: 1, recalled: true },
    ]);
    // Idle: the outcomes go to the ledger; the stubs stay for the session's time to live.
    expect(await runDurableObjectAlarm(store)).toBe(true);
    expect(await store.outcomes()).toHaveLength(1);
    const res = await proxyCall(
      new Request("http://gate.test/v1/savings", { headers: { authorization: `Bearer ${PROD_KEY}` } }),
    );
    const report = (await res.json()) as { outcomes: number; recall: { realized: number } };
    expect(report.outcomes).toBe(1);
    expect(report.recall.realized).toBe(1);
    // Past its time to live, everything goes.
    expect(await runDurableObjectAlarm(store)).toBe(true);
    expect(await store.outcomes()).toEqual([]);
    expect(await store.original("toolu_read")).toBeNull();
  });
});

describe("which sessions enforce mode leaves untouched", () => {
  it("sends a tenant that config:gate's proxy_modes keeps in observe mode byte for byte", async () => {
    await putGateConfig({ proxy_modes: { "agents-prod": "observe" } });
    const { received } = mockProvider(model);
    const request = messagesRequest("sess-override", [user("read"), readCall("t1"), readResult("t1")]);
    const bytes = new Uint8Array(await request.clone().arrayBuffer());
    await proxyCall(request, ENFORCE);
    expect(received[0]!.bytes).toEqual(bytes);
  });

  it("turns a tenant that proxy_modes names on, over a deployment that observes", async () => {
    await putGateConfig({ proxy_modes: { "agents-prod": "enforce" } });
    const { received } = mockProvider(model);
    await proxyCall(messagesRequest("sess-override-on", [user("read the budget")]), {});
    expect((JSON.parse(text(received[0]!.bytes)) as Sent).tools.map((tool) => tool.name)).toContain(
      "recall_tool_output",
    );
  });

  it("passes a held-out session through untouched, every request of it", async () => {
    await putGateConfig({ holdout_fraction: 0.5 });
    const held = Array.from({ length: 50 }, (_, i) => `sess-held-${i}`).find((id) =>
      sessionHeldOut("agents-prod", ledgerSessionBase(id, MODEL), 0.5),
    )!;
    expect(held).toBeDefined();
    const { received } = mockProvider(model);
    for (const messages of [[user("read the budget")], [user("read the budget"), readCall("t1"), readResult("t1")]]) {
      const request = messagesRequest(held, messages);
      const bytes = new Uint8Array(await request.clone().arrayBuffer());
      await proxyCall(request, ENFORCE);
      expect(received[received.length - 1]!.bytes).toEqual(bytes);
    }
  });

  it("leaves a session that uses the provider's context_management observed, from its first request to its last", async () => {
    const { received } = mockProvider(model);
    const extra = { context_management: { edits: [{ type: "clear_tool_uses_20250919" }] } };
    for (const messages of [[user("read the budget")], [user("read the budget"), readCall("t1"), readResult("t1")]]) {
      const request = messagesRequest("sess-context-management", messages, extra);
      const bytes = new Uint8Array(await request.clone().arrayBuffer());
      await proxyCall(request, ENFORCE);
      expect(received[received.length - 1]!.bytes).toEqual(bytes);
    }
  });

  it("leaves a session it first sees under way observed, so its tool list never changes mid-session", async () => {
    const { received } = mockProvider(model);
    const request = messagesRequest("sess-under-way", [user("read the budget"), readCall("t1"), readResult("t1")]);
    const bytes = new Uint8Array(await request.clone().arrayBuffer());
    await proxyCall(request, ENFORCE);
    expect(received[0]!.bytes).toEqual(bytes);
  });

  it("keeps a small tool result as it is, and keeps it kept in every later request", async () => {
    const { received } = mockProvider(model);
    const session = "sess-small";
    await proxyCall(messagesRequest(session, [user("read the budget")]), ENFORCE);
    const turn2 = [user("read the budget"), readCall("t1"), readResult("t1", "short file")];
    await proxyCall(messagesRequest(session, turn2), ENFORCE);
    await proxyCall(messagesRequest(session, [...turn2, { role: "assistant", content: "ok" }, user("more")]), ENFORCE);
    for (const got of received.slice(1)) {
      const sent = JSON.parse(text(got.bytes)) as Sent;
      expect((sent.messages[2]!.content as { content: string }[])[0]!.content).toBe("short file");
    }
  });
});
