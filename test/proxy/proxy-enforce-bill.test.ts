import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SessionState } from "../../src/proxy/session-state";
import { SONNET_45 } from "../fixtures/rows";
import { putRow, resetState } from "../support/helpers";
import { PROD_KEY } from "../support/secrets";
import { mockProvider, proxyCall, type Received, sessionStub, sse, text } from "./proxy-support";

// The session's bill in enforce mode holds every upstream response the
// provider billed, the proxy's own recall rounds included, each exactly
// once (docs/design/proxy.md §8): the client sees only the last round's
// answer, but the provider charged for all of them.

const MODEL = "claude-sonnet-4-5";
const FILE = Array.from({ length: 10_000 }, (_, i) => `line ${i} of the file, nothing to see here`).join("\n");
const ENFORCE = { PROXY_MODE: "enforce" };
const user = (content: string) => ({ role: "user", content });
const readCall = { role: "assistant", content: [{ type: "tool_use", id: "toolu_read", name: "Read", input: {} }] };
const readResult = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_read", content: FILE }] };

function request(session: string, messages: object[], stream: boolean): Request {
  return new Request("http://gate.test/proxy/anthropic/v1/messages", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-api-key": "sk-ant-test",
      "x-offload-gate-key": PROD_KEY,
      "x-offload-session-id": session,
    },
    body: JSON.stringify({
      model: MODEL,
      max_tokens: 256,
      tools: [{ name: "Read", description: "Reads a file", input_schema: { type: "object" } }],
      messages,
      stream,
    }),
  });
}

/** Each call's usage differs, every field apart, so a round missed or counted twice shows in the sum. */
const USAGES = [
  {
    input_tokens: 11,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 7, ephemeral_1h_input_tokens: 3 },
    output_tokens: 5,
  },
  {
    input_tokens: 13,
    cache_read_input_tokens: 101,
    cache_creation: { ephemeral_5m_input_tokens: 17, ephemeral_1h_input_tokens: 29 },
    output_tokens: 19,
  },
  {
    input_tokens: 23,
    cache_read_input_tokens: 211,
    cache_creation: { ephemeral_5m_input_tokens: 31, ephemeral_1h_input_tokens: 2 },
    output_tokens: 37,
  },
];
const cacheWrites = (u: (typeof USAGES)[number]) =>
  u.cache_creation.ephemeral_5m_input_tokens + u.cache_creation.ephemeral_1h_input_tokens;

/** The first call reads the file; the second, seeing the stub, recalls it; the third answers. */
function model(received: Received, call: number): Response {
  const body = JSON.parse(text(received.bytes)) as { stream?: boolean };
  const usage = { ...USAGES[call]!, cache_creation_input_tokens: cacheWrites(USAGES[call]!) };
  const content =
    call === 0
      ? [{ type: "tool_use", id: "toolu_read", name: "Read", input: {} }]
      : call === 1
        ? [{ type: "tool_use", id: "toolu_recall", name: "recall_tool_output", input: { id: "toolu_read" } }]
        : [{ type: "text", text: "It says." }];
  const stop = call === 2 ? "end_turn" : "tool_use";
  const message = {
    id: `msg_${call}`,
    type: "message",
    role: "assistant",
    model: MODEL,
    content,
    stop_reason: stop,
    usage,
  };
  if (body.stream !== true) return Response.json(message);
  const events: { event: string; data: unknown }[] = [
    {
      event: "message_start",
      data: { type: "message_start", message: { ...message, content: [], usage: { ...usage, output_tokens: 1 } } },
    },
  ];
  content.forEach((block, index) => {
    const start = block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} };
    events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: start } });
    const delta =
      block.type === "text"
        ? { type: "text_delta", text: (block as { text: string }).text }
        : { type: "input_json_delta", partial_json: JSON.stringify((block as { input: unknown }).input) };
    events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta } });
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: { type: "message_delta", delta: { stop_reason: stop }, usage: { output_tokens: usage.output_tokens } },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return new Response(sse(events), { headers: { "content-type": "text/event-stream" } });
}

beforeEach(async () => {
  await resetState();
  await putRow(MODEL, SONNET_45);
});
afterEach(() => vi.restoreAllMocks());

describe.each([false, true])("an enforced Messages session's bill (streamed: %s)", (stream) => {
  it("holds the usage of every upstream call, the proxy's own recall round included, exactly once", async () => {
    const session = `sess-bill-${stream}`;
    let call = 0;
    const { received } = mockProvider((sent) => model(sent, call++));
    await proxyCall(request(session, [user("read the file")], stream), ENFORCE);
    const res = await proxyCall(request(session, [user("read the file"), readCall, readResult], stream), ENFORCE);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("It says.");
    // Three upstream calls: the client's two, and the proxy's own after the recall.
    expect(received).toHaveLength(3);
    const state = (await sessionStub("agents-prod", session, MODEL).peek()) as SessionState;
    const sum = (pick: (u: (typeof USAGES)[number]) => number) => USAGES.reduce((total, u) => total + pick(u), 0);
    const billed = state.usages.reduce(
      (total, u) => ({
        input: total.input + u.input,
        cache_read: total.cache_read + u.cache_read,
        cache_write_5m: total.cache_write_5m + u.cache_write_5m,
        cache_write_1h: total.cache_write_1h + u.cache_write_1h,
        output: total.output + u.output,
      }),
      { input: 0, cache_read: 0, cache_write_5m: 0, cache_write_1h: 0, output: 0 },
    );
    // By hand from the mock's numbers: 11+13+23 input, 0+101+211 read, 7+17+31 and 3+29+2 written, 5+19+37 out.
    expect(billed).toEqual({ input: 47, cache_read: 312, cache_write_5m: 55, cache_write_1h: 34, output: 61 });
    expect(billed.input).toBe(sum((u) => u.input_tokens));
    expect(billed.output).toBe(sum((u) => u.output_tokens));
  });
});

describe("an enforced Chat Completions session's bill", () => {
  it("holds every upstream call's usage once, cached input as cache reads, the proxy's recall round included", async () => {
    await putRow("gpt-5", { input: 1.25, output: 10, cache_read: 0.125, cache_write: 1.25 });
    const usages = [
      { prompt_tokens: 40, completion_tokens: 6, prompt_tokens_details: { cached_tokens: 0 } },
      { prompt_tokens: 300, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 128 } },
      { prompt_tokens: 500, completion_tokens: 14, prompt_tokens_details: { cached_tokens: 256 } },
    ];
    let call = 0;
    const { received } = mockProvider(() => {
      const usage = usages[call]!;
      const calls =
        call === 0
          ? [{ id: "call_read", type: "function", function: { name: "read", arguments: "{}" } }]
          : call === 1
            ? [
                {
                  id: "call_r",
                  type: "function",
                  function: { name: "recall_tool_output", arguments: '{"id":"call_read"}' },
                },
              ]
            : [];
      call++;
      const message = {
        role: "assistant",
        content: calls.length > 0 ? null : "It says.",
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      };
      return Response.json({
        id: `chatcmpl-${call}`,
        object: "chat.completion",
        created: 1,
        model: "gpt-5",
        choices: [{ index: 0, message, finish_reason: calls.length > 0 ? "tool_calls" : "stop" }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    });
    const chat = (messages: object[]) =>
      new Request("http://gate.test/proxy/openai/v1/chat/completions", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: "Bearer sk-test",
          "x-offload-gate-key": PROD_KEY,
          "x-offload-session-id": "sess-bill-chat",
        },
        body: JSON.stringify({
          model: "gpt-5",
          tools: [
            { type: "function", function: { name: "read", description: "Reads", parameters: { type: "object" } } },
          ],
          messages,
        }),
      });
    const ask = { role: "user", content: "read the file" };
    await proxyCall(chat([ask]), ENFORCE);
    const readCallChat = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_read", type: "function", function: { name: "read", arguments: "{}" } }],
    };
    const res = await proxyCall(
      chat([ask, readCallChat, { role: "tool", tool_call_id: "call_read", content: FILE }]),
      ENFORCE,
    );
    expect(await res.text()).toContain("It says.");
    expect(received).toHaveLength(3);
    const state = (await sessionStub("agents-prod", "sess-bill-chat", "gpt-5").peek()) as SessionState;
    const total = (pick: (u: SessionState["usages"][number]) => number) =>
      state.usages.reduce((t, u) => t + pick(u), 0);
    // By hand: input 40+172+244 uncached, cache reads 0+128+256, output 6+9+14; nothing written.
    expect(total((u) => u.input)).toBe(456);
    expect(total((u) => u.cache_read)).toBe(384);
    expect(total((u) => u.output)).toBe(29);
    expect(total((u) => u.cache_write_5m + u.cache_write_1h)).toBe(0);
  });
});

describe("an enforced Responses session's bill (streamed)", () => {
  it("holds every upstream call's usage once, read from each stream's completed event, the recall round included", async () => {
    await putRow("gpt-5", { input: 1.25, output: 10, cache_read: 0.125, cache_write: 1.25 });
    const usages = [
      { input_tokens: 50, cached: 0, output_tokens: 7 },
      { input_tokens: 310, cached: 64, output_tokens: 11 },
      { input_tokens: 520, cached: 192, output_tokens: 13 },
    ];
    let call = 0;
    const { received } = mockProvider(() => {
      const u = usages[call]!;
      const fn = (id: string, name: string, args: string) => ({
        type: "function_call",
        id: `fc_${id}`,
        call_id: id,
        name,
        arguments: args,
        status: "completed",
      });
      const output =
        call === 0
          ? [fn("call_read", "read", "{}")]
          : call === 1
            ? [fn("call_r", "recall_tool_output", '{"id":"call_read"}')]
            : [
                {
                  type: "message",
                  id: "msg_1",
                  role: "assistant",
                  status: "completed",
                  content: [{ type: "output_text", text: "It says.", annotations: [] }],
                },
              ];
      call++;
      const response = {
        id: `resp_${call}`,
        object: "response",
        created_at: 1,
        status: "completed",
        model: "gpt-5",
        output,
        usage: {
          input_tokens: u.input_tokens,
          input_tokens_details: { cached_tokens: u.cached },
          output_tokens: u.output_tokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: u.input_tokens + u.output_tokens,
        },
      };
      const events = [
        {
          type: "response.created",
          sequence_number: 0,
          response: { ...response, status: "in_progress", output: [], usage: null },
        },
        { type: "response.completed", sequence_number: 1, response },
      ];
      return new Response(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""), {
        headers: { "content-type": "text/event-stream" },
      });
    });
    const ask = (input: object[]) =>
      new Request("http://gate.test/proxy/openai/v1/responses", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: "Bearer sk-test",
          "x-offload-gate-key": PROD_KEY,
          "x-offload-session-id": "sess-bill-responses",
        },
        body: JSON.stringify({
          model: "gpt-5",
          stream: true,
          tools: [{ type: "function", name: "read", description: "Reads", parameters: { type: "object" } }],
          input,
        }),
      });
    const first = { role: "user", content: "read the file" };
    await proxyCall(ask([first]), ENFORCE);
    const read = {
      type: "function_call",
      id: "fc_call_read",
      call_id: "call_read",
      name: "read",
      arguments: "{}",
      status: "completed",
    };
    const res = await proxyCall(
      ask([first, read, { type: "function_call_output", call_id: "call_read", output: FILE }]),
      ENFORCE,
    );
    expect(await res.text()).toContain("It says.");
    expect(received).toHaveLength(3);
    const state = (await sessionStub("agents-prod", "sess-bill-responses", "gpt-5").peek()) as SessionState;
    const total = (pick: (u: SessionState["usages"][number]) => number) =>
      state.usages.reduce((t, u) => t + pick(u), 0);
    // By hand: input 50+246+328 uncached, cache reads 0+64+192, output 7+11+13.
    expect(total((u) => u.input)).toBe(624);
    expect(total((u) => u.cache_read)).toBe(256);
    expect(total((u) => u.output)).toBe(31);
  });
});
