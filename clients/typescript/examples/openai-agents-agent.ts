// An OpenAI Agents SDK agent whose large function outputs the gate may
// offload. Run it with a gate at $OFFLOAD_GATE_URL (default: `npm run dev`'s 127.0.0.1:8787).
import { Agent, Runner, tool, Usage, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { z } from "zod";
import { createGateClient, OffloadSession } from "offload-gate-client";
import { offloadInputFilter, recallFunctionTool } from "offload-gate-client/openai-agents";

const MODEL = "claude-opus-4-6"; // the model the gate prices; with OpenAI's own models, "gpt-5" say

// Your model goes here (the default OpenAI provider, say). This one plays one, so the example runs
// offline: it fetches the report, reads it back when it sees a placeholder, then answers.
const textOf = (output: unknown) => (typeof output === "string" ? output : ((output as { text?: string })?.text ?? ""));
const model: Model = {
  async getResponse({ input }: ModelRequest): Promise<ModelResponse> {
    const results = (Array.isArray(input) ? input : []).filter((item) => item.type === "function_call_result");
    const text = textOf(results.at(-1)?.output);
    const id = /\{"id":"([^"]+)"\}/.exec(text)?.[1];
    const usage = new Usage({
      requests: 1,
      inputTokens: 1_500 + Math.ceil(text.length / 4),
      outputTokens: 50,
      inputTokensDetails: { cached_tokens: results.length > 0 ? 1_500 : 0 },
    });
    const call = (name: string, args: object) => [
      {
        type: "function_call" as const,
        callId: `call_${results.length + 1}`,
        name,
        arguments: JSON.stringify(args),
        status: "completed" as const,
      },
    ];
    if (results.length === 0) return { usage, output: call("fetch_report", { quarter: "Q3" }) };
    if (id) return { usage, output: call("recall_tool_output", { id }) };
    return {
      usage,
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [
            { type: "output_text", text: `The report is ${text.length.toLocaleString("en-US")} characters long.` },
          ],
        },
      ],
    };
  },
  getStreamedResponse: () => {
    throw new Error("not streamed in this example");
  },
};

const gate = createGateClient({ baseUrl: process.env.OFFLOAD_GATE_URL, timeoutMs: 2_000 }); // key: $OFFLOAD_GATE_API_KEY
const session = new OffloadSession({ gate, model: MODEL });
const fetchReport = tool({
  name: "fetch_report",
  description: "Fetches a quarterly report",
  parameters: z.object({ quarter: z.string() }),
  execute: async ({ quarter }) => `${quarter} report\n${"revenue grew in every region; ".repeat(5_000)}`, // about 37,000 tokens
});
const agent = new Agent({
  name: "analyst",
  instructions: "Answer from the report.",
  model,
  tools: [fetchReport, recallFunctionTool(session)],
});

const seen: unknown[] = [];
const filter = offloadInputFilter(session);
const runner = new Runner({
  tracingDisabled: true,
  callModelInputFilter: async (args) => {
    const data = await filter(args);
    seen.push(data.input);
    return data;
  },
});
const result = await runner.run(agent, "How long is the Q3 report?");
// The filter counted each model call as it completed, and the run's end reported every outcome and
// the session's bill; end() only reads that report here, to print it.
const summary = await session.end();

const sent = (seen[1] as { type: string; output?: unknown }[]).find((item) => item.type === "function_call_result");
console.log("the model saw:", textOf(sent?.output));
console.log("answer:", result.finalOutput);
console.log(
  `session: ${summary.turns} turns, ${summary.decisions} decision, ${summary.stubbed} stubbed, ${summary.recalled} recalled`,
);
console.log(
  `reported: outcomes ${summary.outcomes?.ok ? summary.outcomes.accepted : "not taken"}, bill ${summary.session?.ok ? "accepted" : "not taken"}`,
);
