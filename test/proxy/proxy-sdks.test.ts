import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PROD_KEY } from "../support/secrets";
import {
  MOCK_ANTHROPIC,
  MOCK_OPENAI,
  mockProvider,
  type Received,
  type Sent,
  sdkFetch,
  settle,
  sse,
} from "./proxy-support";

// The SDKs as their users run them, pointed at the proxy by their base URL
// and a default header only; the mock provider behind it answers as the
// providers do, streamed and not. What the mock received must be, byte for
// byte, what the SDK sent.

const GATE = "http://gate.test";
const MESSAGE = {
  id: "msg_01",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5",
  content: [{ type: "text", text: "The file has 3 lines." }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: {
    input_tokens: 20,
    output_tokens: 7,
    cache_read_input_tokens: 900,
    cache_creation_input_tokens: 100,
    cache_creation: { ephemeral_5m_input_tokens: 40, ephemeral_1h_input_tokens: 60 },
  },
};
const MESSAGE_EVENTS = sse([
  { event: "message_start", data: { type: "message_start", message: { ...MESSAGE, content: [], stop_reason: null } } },
  {
    event: "content_block_start",
    data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  },
  {
    event: "content_block_delta",
    data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "The file has " } },
  },
  {
    event: "content_block_delta",
    data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "3 lines." } },
  },
  { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
  {
    event: "message_delta",
    data: {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 7 },
    },
  },
  { event: "message_stop", data: { type: "message_stop" } },
]);

const RESPONSE = {
  id: "resp_01",
  object: "response",
  created_at: 1_765_000_000,
  status: "completed",
  model: "gpt-5",
  output: [
    {
      type: "message",
      id: "msg_1",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "Three lines.", annotations: [] }],
    },
  ],
  usage: {
    input_tokens: 1000,
    input_tokens_details: { cached_tokens: 800 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 1005,
  },
};
const RESPONSE_EVENTS = sse([
  {
    event: "response.created",
    data: {
      type: "response.created",
      sequence_number: 0,
      response: { ...RESPONSE, status: "in_progress", output: [] },
    },
  },
  {
    event: "response.output_text.delta",
    data: {
      type: "response.output_text.delta",
      sequence_number: 1,
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      delta: "Three lines.",
    },
  },
  { event: "response.completed", data: { type: "response.completed", sequence_number: 2, response: RESPONSE } },
]);

const COMPLETION = {
  id: "chatcmpl-01",
  object: "chat.completion",
  created: 1_765_000_000,
  model: "gpt-4.1",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Three lines.", refusal: null },
      finish_reason: "stop",
      logprobs: null,
    },
  ],
  usage: {
    prompt_tokens: 1000,
    completion_tokens: 5,
    total_tokens: 1005,
    prompt_tokens_details: { cached_tokens: 800 },
  },
};
const chunk = (delta: object, finish: string | null, usage: object | null = null) => ({
  id: "chatcmpl-01",
  object: "chat.completion.chunk",
  created: 1_765_000_000,
  model: "gpt-4.1",
  choices: usage === null ? [{ index: 0, delta, finish_reason: finish, logprobs: null }] : [],
  usage,
});
const COMPLETION_EVENTS = sse([
  { data: chunk({ role: "assistant", content: "" }, null) },
  { data: chunk({ content: "Three lines." }, null) },
  { data: chunk({}, "stop") },
  { data: chunk({}, null, COMPLETION.usage) },
  { data: "[DONE]" },
]);

/** The mock provider: each endpoint's answer, JSON or a stream as the request asks. */
function provider(got: Received): Response {
  const body = JSON.parse(new TextDecoder().decode(got.bytes)) as { stream?: boolean };
  const stream = (text: string) => new Response(text, { headers: { "content-type": "text/event-stream" } });
  if (got.url === `${MOCK_ANTHROPIC}/v1/messages`) return body.stream ? stream(MESSAGE_EVENTS) : Response.json(MESSAGE);
  if (got.url === `${MOCK_OPENAI}/v1/responses`) return body.stream ? stream(RESPONSE_EVENTS) : Response.json(RESPONSE);
  if (got.url === `${MOCK_OPENAI}/v1/chat/completions`)
    return body.stream ? stream(COMPLETION_EVENTS) : Response.json(COMPLETION);
  if (got.url === `${MOCK_ANTHROPIC}/v1/messages/count_tokens`) return Response.json({ input_tokens: 42 });
  return new Response("{}", { status: 404 });
}

// A conversation with a tool result, so the proxy's observation has something to decide.
const TOOL_TURN: Anthropic.MessageParam[] = [
  { role: "user", content: "How many lines in a.txt?" },
  { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: "a.txt" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "one\ntwo\nthree" }] },
];

afterEach(async () => {
  await settle();
  vi.restoreAllMocks();
});

/** The provider got each request's bytes exactly, and every header the SDK set but the gate key, as set. */
function expectSameBytes(sent: Sent[], received: Received[]): void {
  expect(received.length).toBe(sent.length);
  received.forEach((got, i) => {
    const mine = sent[i]!;
    expect(Buffer.from(got.bytes).equals(Buffer.from(mine.bytes))).toBe(true);
    for (const [name, value] of mine.headers) {
      if (name === "x-offload-gate-key") expect(got.headers.has(name)).toBe(false);
      else if (name !== "content-length") expect([name, got.headers.get(name)]).toEqual([name, value]);
    }
  });
}

describe("Anthropic's TypeScript SDK through the proxy", () => {
  const client = (sent: Sent[]) =>
    new Anthropic({
      apiKey: "sk-ant-test",
      baseURL: `${GATE}/proxy/anthropic`,
      defaultHeaders: { "x-offload-gate-key": PROD_KEY },
      fetch: sdkFetch(sent),
      maxRetries: 0,
    });

  it("creates a message unchanged, and the provider receives exactly the bytes the SDK sent", async () => {
    const mock = mockProvider(provider);
    const sent: Sent[] = [];
    const message = await client(sent).messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      messages: TOOL_TURN,
    });
    expect(message).toEqual(MESSAGE);
    expectSameBytes(sent, mock.received);
    const credential = mock.received[0]!.headers.get("x-api-key") ?? mock.received[0]!.headers.get("authorization");
    expect(credential).toContain("sk-ant-test");
    expect(mock.received[0]!.headers.get("anthropic-version")).toBeTruthy();
  });

  it("streams a message unchanged, event by event", async () => {
    const mock = mockProvider(provider);
    const sent: Sent[] = [];
    const stream = client(sent).messages.stream({ model: "claude-sonnet-4-5", max_tokens: 64, messages: TOOL_TURN });
    const deltas: string[] = [];
    stream.on("text", (delta) => deltas.push(delta));
    const final = await stream.finalMessage();
    expect(deltas).toEqual(["The file has ", "3 lines."]);
    expect(final.content).toEqual(MESSAGE.content);
    expect(final.usage.output_tokens).toBe(7);
    expectSameBytes(sent, mock.received);
  });

  it("counts tokens through the proxy", async () => {
    const mock = mockProvider(provider);
    const sent: Sent[] = [];
    const count = await client(sent).messages.countTokens({ model: "claude-sonnet-4-5", messages: TOOL_TURN });
    expect(count.input_tokens).toBe(42);
    expectSameBytes(sent, mock.received);
  });
});

describe("OpenAI's TypeScript SDK through the proxy", () => {
  const client = (sent: Sent[]) =>
    new OpenAI({
      apiKey: "sk-openai-test",
      baseURL: `${GATE}/proxy/openai/v1`,
      defaultHeaders: { "x-offload-gate-key": PROD_KEY },
      fetch: sdkFetch(sent),
      maxRetries: 0,
    });
  const input: OpenAI.Responses.ResponseInput = [
    { role: "user", content: "How many lines in a.txt?" },
    { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a.txt"}' },
    { type: "function_call_output", call_id: "call_1", output: "one\ntwo\nthree" },
  ];
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: "user", content: "How many lines in a.txt?" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } }],
    },
    { role: "tool", tool_call_id: "call_1", content: "one\ntwo\nthree" },
  ];

  it("creates a response unchanged, and the provider receives exactly the bytes the SDK sent", async () => {
    const mock = mockProvider(provider);
    const sent: Sent[] = [];
    const response = await client(sent).responses.create({ model: "gpt-5", input });
    expect(response.output_text).toBe("Three lines.");
    expect(response.usage).toEqual(RESPONSE.usage);
    expectSameBytes(sent, mock.received);
    expect(mock.received[0]!.headers.get("authorization")).toBe("Bearer sk-openai-test");
    expect(mock.received[0]!.headers.has("x-offload-gate-key")).toBe(false);
  });

  it("streams a response unchanged", async () => {
    const mock = mockProvider(provider);
    const sent: Sent[] = [];
    const stream = await client(sent).responses.create({ model: "gpt-5", input, stream: true });
    const types: string[] = [];
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
    }
    expect(types).toEqual(["response.created", "response.output_text.delta", "response.completed"]);
    expect(text).toBe("Three lines.");
    expectSameBytes(sent, mock.received);
  });

  it("creates a chat completion unchanged", async () => {
    const mock = mockProvider(provider);
    const sent: Sent[] = [];
    const completion = await client(sent).chat.completions.create({ model: "gpt-4.1", messages });
    expect(completion).toEqual(COMPLETION);
    expectSameBytes(sent, mock.received);
  });

  it("streams a chat completion unchanged, its usage chunk included", async () => {
    const mock = mockProvider(provider);
    const sent: Sent[] = [];
    const stream = await client(sent).chat.completions.create({
      model: "gpt-4.1",
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let usage: unknown = null;
    for await (const part of stream) {
      text += part.choices[0]?.delta.content ?? "";
      if (part.usage) usage = part.usage;
    }
    expect(text).toBe("Three lines.");
    expect(usage).toEqual(COMPLETION.usage);
    expectSameBytes(sent, mock.received);
  });
});
