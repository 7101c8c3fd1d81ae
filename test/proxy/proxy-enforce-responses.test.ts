import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { putRow, resetState } from "../support/helpers";
import { PROD_KEY } from "../support/secrets";
import {
  BIG_FILE,
  ENFORCE,
  mockProvider,
  type Received,
  sdkFetch,
  type Sent,
  settle,
  text,
  UNIQUE,
} from "./proxy-support";

// Enforce mode on OpenAI's Responses API with the history resent, against a
// mock provider: the OpenAI SDK runs a session whose big function output is
// stubbed and recalled without the SDK seeing either, streamed and not; a
// request that continues a stored response gets its new output stubbed and
// no recall put back (OpenAI's copy of the history holds it).

const MODEL = "gpt-5";
const GPT5 = { input: 1.25, output: 10, cache_read: 0.125, cache_write: 1.25 };
const TOOLS = [
  { type: "function", name: "read", description: "Reads a file", parameters: { type: "object" }, strict: false },
];

type Json = Record<string, unknown>;
let answers = 0;

/** A Responses answer with these output items: JSON, or its stream's created and completed events. */
function responseAnswer(output: Json[], stream: boolean): Response {
  answers += 1;
  const response = {
    id: `resp_${answers}`,
    object: "response",
    created_at: 1,
    status: "completed",
    model: MODEL,
    output,
    usage: {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    },
  };
  if (!stream) return Response.json(response);
  const events = [
    { type: "response.created", sequence_number: 0, response: { ...response, status: "in_progress", output: [] } },
    { type: "response.completed", sequence_number: 1, response },
  ];
  return new Response(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""), {
    headers: { "content-type": "text/event-stream" },
  });
}

const call = (callId: string, name: string, args: string): Json => ({
  type: "function_call",
  id: `fc_${callId}`,
  call_id: callId,
  name,
  arguments: args,
  status: "completed",
});
const message = (say: string): Json => ({
  type: "message",
  id: "msg_1",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text: say, annotations: [] }],
});

/** A model that reads when asked, recalls what it finds stubbed, and answers from the original. */
function model(received: Received): Response {
  const body = JSON.parse(text(received.bytes)) as { input: Json[] | string; stream?: boolean };
  const stream = body.stream === true;
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  const last = input[input.length - 1]!;
  if (last.type !== "function_call_output")
    return responseAnswer([call("call_read", "read", '{"path":"budget.ts"}')], stream);
  const output = String(last.output);
  if (output.startsWith("[offloaded:"))
    return responseAnswer([call("call_recall", "recall_tool_output", JSON.stringify({ id: last.call_id }))], stream);
  return responseAnswer([message(output.includes(UNIQUE) ? `It says: ${UNIQUE}` : "Nothing.")], stream);
}

beforeEach(async () => {
  answers = 0;
  await resetState();
  await putRow(MODEL, GPT5);
});
afterEach(() => vi.restoreAllMocks());

function client(sent: Sent[], session: string): OpenAI {
  return new OpenAI({
    apiKey: "sk-test",
    baseURL: "http://gate.test/proxy/openai/v1",
    defaultHeaders: { "x-offload-gate-key": PROD_KEY, "x-offload-session-id": session },
    fetch: sdkFetch(sent, ENFORCE),
    maxRetries: 0,
  });
}

describe("the OpenAI SDK's Responses through an enforcing proxy", () => {
  it.each([false, true])(
    "runs a session whose big function output is stubbed and recalled, and sees neither the stub nor the recall (streamed: %s)",
    async (stream) => {
      const { received } = mockProvider(model);
      const sent: Sent[] = [];
      const openai = client(sent, `sess-responses-${stream}`);
      const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "read the budget" }];
      const ask = async (): Promise<OpenAI.Responses.Response> => {
        const params = { model: MODEL, input, tools: TOOLS as OpenAI.Responses.Tool[], store: false };
        if (!stream) return await openai.responses.create(params);
        let done: OpenAI.Responses.Response | null = null;
        for await (const event of await openai.responses.create({ ...params, stream: true }))
          if (event.type === "response.completed") done = event.response;
        return done!;
      };
      const first = await ask();
      const read = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
      expect(read.name).toBe("read");
      input.push(read, { type: "function_call_output", call_id: read.call_id, output: BIG_FILE });
      const second = await ask();
      await settle();
      expect(second.output.map((item) => item.type)).toEqual(["message"]);
      expect(JSON.stringify(second.output)).toContain(`It says: ${UNIQUE}`);
      expect(received).toHaveLength(3);
      const tools = (JSON.parse(text(received[0]!.bytes)) as { tools: { name: string }[] }).tools;
      expect(tools.map((tool) => tool.name)).toEqual(["read", "recall_tool_output"]);
      expect(text(received[1]!.bytes)).toContain("[offloaded: the output of read call call_read");
      expect(text(received[1]!.bytes)).not.toContain(UNIQUE);
      // The proxy's own second call: the recall call and the original appended after the stubbed input.
      const recalled = JSON.parse(text(received[2]!.bytes)) as { input: Json[] };
      expect(recalled.input.slice(3).map((item) => item.type)).toEqual(["function_call", "function_call_output"]);
      expect(recalled.input[4]!.output).toBe(BIG_FILE);
      expect(text(sent[1]!.bytes)).not.toContain("[offloaded:");
    },
  );

  it("stubs a new output of a request that continues a stored response, and puts no recall back into it", async () => {
    const { received } = mockProvider(model);
    const sent: Sent[] = [];
    const openai = client(sent, "sess-responses-chained");
    const params = { model: MODEL, tools: TOOLS as OpenAI.Responses.Tool[] };
    const first = await openai.responses.create({ ...params, input: "read the budget" });
    const read = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await openai.responses.create({
      ...params,
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: read.call_id, output: BIG_FILE }],
    });
    expect(JSON.stringify(second.output)).toContain(`It says: ${UNIQUE}`);
    await openai.responses.create({ ...params, previous_response_id: second.id, input: "thanks" });
    await settle();
    expect(received).toHaveLength(4);
    expect(text(received[1]!.bytes)).toContain("[offloaded:");
    const continued = JSON.parse(text(received[2]!.bytes)) as { previous_response_id: string; input: Json[] };
    expect(continued.previous_response_id).toBe(first.id);
    // The last request: the client's own input only, with the recall tool still last.
    const last = JSON.parse(text(received[3]!.bytes)) as { input: unknown; tools: { name: string }[] };
    expect(last.input).toBe("thanks");
    expect(last.tools.map((tool) => tool.name)).toEqual(["read", "recall_tool_output"]);
  });

  it("leaves a session that asks for OpenAI's own compaction (context_management) observed, byte for byte", async () => {
    const { received } = mockProvider(model);
    const sent: Sent[] = [];
    const openai = client(sent, "sess-responses-compaction");
    const params = {
      model: MODEL,
      tools: TOOLS as OpenAI.Responses.Tool[],
      context_management: [{ type: "compaction", compact_threshold: 200_000 }],
    } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming;
    const first = await openai.responses.create({ ...params, input: "read the budget" });
    const read = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    await openai.responses.create({
      ...params,
      input: [
        { role: "user", content: "read the budget" },
        read,
        { type: "function_call_output", call_id: read.call_id, output: BIG_FILE },
      ],
    });
    await settle();
    expect(received.map((got) => text(got.bytes))).toEqual(sent.map((got) => text(got.bytes)));
  });
});
