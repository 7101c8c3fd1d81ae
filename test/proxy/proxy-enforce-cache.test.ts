import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SONNET_45 } from "../fixtures/rows";
import { putRow, resetState } from "../support/helpers";
import { PROD_KEY } from "../support/secrets";
import { messagesEnd, mockProvider, proxyCall, type Received, sharedPrefix, sse, text } from "./proxy-support";

// The proof that enforce mode keeps the provider's cache whole: a 30-turn
// session, streamed, where the model calls several tools at once and now
// and then recalls what was stubbed. The mock provider measures, for every
// request it gets, the longest prefix it shares with the one before: that
// prefix always covers every message the one before sent (so the cache reads
// all of it), and it never shrinks.

const MODEL = "claude-sonnet-4-5";
const TURNS = 30;
const big = (id: string) => `${id}\n${"x".repeat(60)}\n`.repeat(2_000);
const TOOLS = [
  { name: "Read", description: "Reads a file", input_schema: { type: "object" } },
  { name: "Grep", description: "Searches", input_schema: { type: "object" } },
];

type Block = Record<string, unknown>;
interface Body {
  messages: { role: string; content: string | Block[] }[];
}

/** A streamed answer carrying these blocks, as Anthropic's events carry them. */
function streamed(content: Block[], stop: string): Response {
  const usage = { input_tokens: 10, output_tokens: 5 };
  const start = { id: "msg", type: "message", role: "assistant", model: MODEL, content: [], stop_reason: null, usage };
  const events: { event: string; data: unknown }[] = [
    { event: "message_start", data: { type: "message_start", message: start } },
  ];
  content.forEach((block, index) => {
    const opening = block.type === "tool_use" ? { ...block, input: {} } : { type: "text", text: "" };
    events.push({ event: "content_block_start", data: { type: "content_block_start", index, content_block: opening } });
    const delta =
      block.type === "tool_use"
        ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
        : { type: "text_delta", text: block.text };
    events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta } });
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: { type: "message_delta", delta: { stop_reason: stop }, usage: { output_tokens: 5 } },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  return new Response(sse(events), { headers: { "content-type": "text/event-stream" } });
}

beforeEach(async () => {
  await resetState();
  await putRow(MODEL, SONNET_45);
});
afterEach(() => vi.restoreAllMocks());

describe("the cache under enforce mode", () => {
  it("keeps every request's prefix whole over a 30-turn streamed session with parallel tool calls and recalls", async () => {
    let turn = 0;
    let recalls = 0;
    const prefixes: number[] = [];
    let previous: Uint8Array | null = null;
    mockProvider((received: Received) => {
      if (previous !== null) {
        const shared = sharedPrefix(received.bytes, previous);
        // The whole of the previous request's messages is read again, unchanged.
        expect(shared).toBeGreaterThanOrEqual(messagesEnd(previous));
        prefixes.push(shared);
      }
      previous = received.bytes;
      const body = JSON.parse(text(received.bytes)) as Body;
      const last = body.messages[body.messages.length - 1]!;
      const results = Array.isArray(last.content) ? last.content.filter((b) => b.type === "tool_result") : [];
      const stubs = results.filter((b) => typeof b.content === "string" && b.content.startsWith("[offloaded:"));
      // Every third turn the model recalls what was stubbed (two at once when it can), and only that.
      if (stubs.length > 0 && turn % 3 === 0) {
        recalls += 1;
        return streamed(
          stubs.slice(0, 2).map((b, k) => ({
            type: "tool_use",
            id: `recall_${turn}_${k}`,
            name: "recall_tool_output",
            input: { id: b.tool_use_id },
          })),
          "tool_use",
        );
      }
      if (turn >= TURNS - 1) return streamed([{ type: "text", text: "Done." }], "end_turn");
      // Three tools at once: two big reads and a small grep.
      return streamed(
        [
          { type: "text", text: `Turn ${turn}.` },
          { type: "tool_use", id: `read_${turn}_a`, name: "Read", input: { path: `a${turn}` } },
          { type: "tool_use", id: `read_${turn}_b`, name: "Read", input: { path: `b${turn}` } },
          { type: "tool_use", id: `grep_${turn}`, name: "Grep", input: { pattern: "x" } },
        ],
        "tool_use",
      );
    });

    // The client: runs each tool it is asked to, resends the whole history with the originals.
    const messages: Body["messages"] = [{ role: "user", content: "Audit the repository." }];
    for (turn = 0; turn < TURNS; turn++) {
      const res = await proxyCall(
        new Request("http://gate.test/proxy/anthropic/v1/messages", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-api-key": "sk-ant-test",
            "x-offload-gate-key": PROD_KEY,
            "x-offload-session-id": "sess-cache-30",
          },
          body: JSON.stringify({ model: MODEL, max_tokens: 256, stream: true, tools: TOOLS, messages }),
        }),
        { PROXY_MODE: "enforce" },
      );
      expect(res.status).toBe(200);
      const events = (await res.text())
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => JSON.parse(line.slice(5)) as Block);
      const calls = events
        .filter((e) => e.type === "content_block_start")
        .map((e) => e.content_block as Block)
        .filter((b) => b.type === "tool_use");
      // The client never sees a recall call.
      expect(calls.map((call) => call.name)).not.toContain("recall_tool_output");
      const texts = events
        .filter((e) => e.type === "content_block_delta" && (e.delta as Block).type === "text_delta")
        .map((e) => ({ type: "text", text: (e.delta as Block).text }));
      const answer: Block[] = [...texts, ...calls.map((call) => ({ ...call, input: { path: "?" } }))];
      // The client's own copy of the answer: what it resends is what it got.
      const inputs = events
        .filter((e) => e.type === "content_block_delta" && (e.delta as Block).type === "input_json_delta")
        .map((e) => JSON.parse((e.delta as Block).partial_json as string) as unknown);
      calls.forEach((_, k) => {
        answer[texts.length + k]!.input = inputs[k] as never;
      });
      messages.push({ role: "assistant", content: answer });
      if (calls.length === 0) break;
      messages.push({
        role: "user",
        content: calls.map((call) => ({
          type: "tool_result",
          tool_use_id: call.id,
          content: call.name === "Grep" ? "3 matches" : big(call.id as string),
        })),
      });
    }
    expect(turn).toBe(TURNS - 1);
    expect(recalls).toBeGreaterThanOrEqual(5);
    expect(prefixes.length).toBeGreaterThan(TURNS);
    for (let i = 1; i < prefixes.length; i++) expect(prefixes[i]!).toBeGreaterThanOrEqual(prefixes[i - 1]!);
  }, 120_000);
});
