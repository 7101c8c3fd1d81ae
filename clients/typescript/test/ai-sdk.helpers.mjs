// The AI SDK live tests' scripted model and tools (ai-sdk.live.test.mjs): the SDK's own
// MockLanguageModelV4 answering from a script, and the agent's tool beside the recall tool.
import { jsonSchema, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { recallTool } from "offload-gate-client/ai-sdk";
import { MODEL, stubId } from "./live-helpers.mjs";

export const usage = (input, read, write, output = 40) => ({
  inputTokens: { total: input + read + write, noCache: input, cacheRead: read, cacheWrite: write },
  outputTokens: { total: output, text: output, reasoning: undefined },
});
export const finish = (unified) => ({ unified, raw: unified });
export const results = (prompt) => prompt.filter((m) => m.role === "tool").flatMap((m) => m.content);

/**
 * A scripted model: recalls each stub it has not recalled yet, else calls
 * `toolName` until it has `calls` results, then answers. Usage per call from `usages`.
 */
export function scriptedModel({ toolName, calls = 1, usages }) {
  let n = 0;
  const respond = ({ prompt }) => {
    const done = results(prompt);
    const asked = prompt
      .filter((m) => m.role === "assistant")
      .flatMap((m) => m.content)
      .filter((p) => p.type === "tool-call" && p.toolName === "recall_tool_output");
    const recalled = new Set(asked.map((p) => (typeof p.input === "string" ? JSON.parse(p.input) : p.input).id));
    const stub = done.find(
      (p) =>
        p.toolName === toolName &&
        typeof p.output.value === "string" &&
        stubId(p.output.value) &&
        !recalled.has(stubId(p.output.value)),
    );
    const u = usages[Math.min(n, usages.length - 1)];
    n += 1;
    const call = (name, input) => ({
      content: [{ type: "tool-call", toolCallId: `call_${n}`, toolName: name, input: JSON.stringify(input) }],
      finishReason: finish("tool-calls"),
      usage: u,
      warnings: [],
    });
    if (stub) return call("recall_tool_output", { id: stubId(stub.output.value) });
    if (done.filter((p) => p.toolName === toolName).length < calls) return call(toolName, { part: n });
    return { content: [{ type: "text", text: "done" }], finishReason: finish("stop"), usage: u, warnings: [] };
  };
  return new MockLanguageModelV4({ modelId: MODEL, doGenerate: async (options) => respond(options) });
}

/** The agent's tool, answering `outputFor(part)`, beside the session's recall tool. */
export function agentTools(session, toolName, outputFor) {
  const input = jsonSchema({ type: "object", properties: { part: { type: "number" } }, required: ["part"] });
  return {
    [toolName]: tool({ inputSchema: input, execute: async ({ part }) => outputFor(part) }),
    [session.recallToolName]: recallTool(session),
  };
}
