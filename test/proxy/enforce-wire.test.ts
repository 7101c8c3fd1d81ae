import { describe, expect, it } from "vitest";
import { messageOfStream, recallCalls } from "../../src/proxy/enforce/answer";
import { chatRecall, readChat } from "../../src/proxy/enforce/chat";
import { recallAnswer, withRecalls } from "../../src/proxy/enforce/dialect";
import { readMessages, rewriteMessages } from "../../src/proxy/enforce/messages";
import { proxyModeOf } from "../../src/proxy/enforce/mode";
import { sse } from "./proxy-support";

// Enforce mode's wire formats, pure: answers put back together from their
// streams, what counts as a recall-only answer, what a request's tool
// outputs are, and where recalls go back in.

describe("an Anthropic stream put back together", () => {
  it("rebuilds thinking with its signature, text and a tool call's input from partial JSON", () => {
    const stream = sse([
      { event: "message_start", data: { type: "message_start", message: { content: [] } } },
      { data: { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } } },
      { data: { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Hm, " } } },
      { data: { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "recall." } } },
      { data: { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig==" } } },
      { data: { type: "content_block_stop", index: 0 } },
      {
        data: {
          type: "content_block_start",
          index: 1,
          content_block: { type: "tool_use", id: "r1", name: "recall_tool_output", input: {} },
        },
      },
      { data: { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"id":' } } },
      { data: { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"t1"}' } } },
      { data: { type: "content_block_stop", index: 1 } },
      { data: { type: "message_delta", delta: { stop_reason: "tool_use" } } },
      { data: { type: "message_stop" } },
    ]);
    const message = messageOfStream(stream)!;
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Hm, recall.", signature: "sig==" },
      { type: "tool_use", id: "r1", name: "recall_tool_output", input: { id: "t1" } },
    ]);
    expect(recallCalls(message)).toEqual([{ tool_use_id: "r1", output: "t1" }]);
  });

  it("is not a whole message without message_stop, or with an error event", () => {
    expect(messageOfStream(sse([{ data: { type: "message_start", message: { content: [] } } }]))).toBeNull();
    expect(
      messageOfStream(
        sse([{ data: { type: "error", error: { type: "overloaded_error" } } }, { data: { type: "message_stop" } }]),
      ),
    ).toBeNull();
  });

  it("is no recall when the answer also calls one of the client's tools", () => {
    const message = {
      stop_reason: "tool_use",
      content: [
        { type: "tool_use", id: "r1", name: "recall_tool_output", input: { id: "t1" } },
        { type: "tool_use", id: "b1", name: "Bash", input: {} },
      ],
    };
    expect(recallCalls(message)).toBeNull();
    expect(recallCalls({ ...message, stop_reason: "end_turn" })).toBeNull();
  });
});

describe("a Chat Completions answer", () => {
  it("is a recall when its one choice calls only the recall function, from JSON or chunks", () => {
    const call = { id: "c9", type: "function", function: { name: "recall_tool_output", arguments: '{"id":"c1"}' } };
    const json = JSON.stringify({
      choices: [
        { index: 0, message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls" },
      ],
    });
    expect(chatRecall(json, false)?.calls).toEqual([{ tool_use_id: "c9", output: "c1" }]);
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const stream =
      chunk({ role: "assistant" }) +
      chunk({
        tool_calls: [{ index: 0, id: "c9", type: "function", function: { name: "recall_tool_output", arguments: "" } }],
      }) +
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"id":"c1"}' } }] }) +
      chunk({}, "tool_calls") +
      "data: [DONE]\n\n";
    expect(chatRecall(stream, true)).toEqual({
      assistant: { role: "assistant", content: null, tool_calls: [call] },
      calls: [{ tool_use_id: "c9", output: "c1" }],
    });
    // Two choices: not an answer the proxy resolves for the client.
    const two = JSON.stringify({ choices: [JSON.parse(json).choices[0], JSON.parse(json).choices[0]] });
    expect(chatRecall(two, false)).toBeNull();
  });

  it("reads a request's tool messages, their tools, and which came after the last answer", () => {
    const view = readChat({
      model: "gpt-5",
      messages: [
        { role: "user", content: "go" },
        {
          role: "assistant",
          tool_calls: [{ id: "c1", type: "function", function: { name: "read", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "abc" }] },
      ],
    })!;
    expect(view.start).toBe(false);
    expect(view.outputs).toMatchObject([{ call_id: "c1", text: "abc", tool: "read", stubbable: true, latest: true }]);
  });
});

describe("a Messages request, read and rewritten", () => {
  const body = {
    model: "claude-sonnet-4-5",
    tools: [{ name: "Read", input_schema: { type: "object" } }],
    messages: [
      { role: "user", content: "go" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Read", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "big" },
          { type: "tool_result", tool_use_id: "t2", content: [{ type: "image", source: {} }] },
          { type: "tool_result", tool_use_id: "t3", content: "failed", is_error: true },
        ],
      },
    ],
  };

  it("stubs text only: an image or an error is never stubbable", () => {
    const view = readMessages(body)!;
    expect(view.outputs.map((output) => [output.call_id, output.tool, output.stubbable])).toEqual([
      ["t1", "Read", true],
      ["t2", null, false],
      ["t3", null, false],
    ]);
    expect(readMessages({ ...body, context_management: { edits: [] } })!.refusal).toContain("context_management");
  });

  it("enforces a session whose context editing keeps all thinking, as Claude Code asks on every request", () => {
    const keepAll = { edits: [{ type: "clear_thinking_20251015", keep: "all" }] };
    expect(readMessages({ ...body, context_management: keepAll })!.refusal).toBeNull();
    const keepSome = { edits: [{ type: "clear_thinking_20251015", keep: { type: "thinking_turns", value: 1 } }] };
    expect(readMessages({ ...body, context_management: keepSome })!.refusal).toContain("context_management");
    const alsoTools = { edits: [...keepAll.edits, { type: "clear_tool_uses_20250919" }] };
    expect(readMessages({ ...body, context_management: alsoTools })!.refusal).toContain("context_management");
  });

  it("swaps the stub in, appends the recall tool last, and leaves the client's body as it was", () => {
    const before = JSON.stringify(body);
    const out = rewriteMessages(body, { stubs: new Map([["t1", "[stub]"]]), recalls: [], original: () => null });
    expect(JSON.stringify(body)).toBe(before);
    expect((out.tools as { name: string }[]).map((tool) => tool.name)).toEqual(["Read", "recall_tool_output"]);
    expect((out.messages as { content: { content: unknown }[] }[])[2]!.content[0]!.content).toBe("[stub]");
  });

  it("puts a recall back before the client's message it came before, and leaves out one the client has no answer to yet", () => {
    const exchange = { after: 1, assistant: "{}", results: [] };
    expect(
      withRecalls(
        ["a", "b"],
        [exchange],
        () => ["R"],
        (m) => m,
      ),
    ).toEqual(["a", "R", "b"]);
    expect(
      withRecalls(
        ["a"],
        [exchange],
        () => ["R"],
        (m) => m,
      ),
    ).toEqual(["a"]);
  });

  it("answers a recall whose original is gone plainly", () => {
    expect(recallAnswer("t1", () => null)).toContain("no longer available");
    expect(recallAnswer("t1", () => "the original")).toBe("the original");
  });
});

describe("the proxy's mode", () => {
  it("takes the tenant's entry over the variable, and observes on anything but enforce", () => {
    expect(proxyModeOf("enforce", { acme: "observe" }, "acme")).toBe("observe");
    expect(proxyModeOf("observe", { acme: "enforce" }, "acme")).toBe("enforce");
    expect(proxyModeOf("enforce", { other: "observe" }, "acme")).toBe("enforce");
    expect(proxyModeOf("Enforce!", null, "acme")).toBe("observe");
    // A tenant named after a built-in property is looked up as its own entry only.
    const modes = JSON.parse('{"constructor":"enforce"}') as Record<string, "enforce">;
    expect(proxyModeOf(undefined, modes, "toString")).toBe("observe");
    expect(proxyModeOf(undefined, modes, "constructor")).toBe("enforce");
  });
});
