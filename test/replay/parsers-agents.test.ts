import { describe, expect, it } from "vitest";
import { detectFormat, parseTranscript, priceBook, replayTrace, type TraceFormat } from "../../src/replay";
import seed from "../../pricing.seed.json";
import {
  aiderHistory,
  codexCurrentRollout,
  codexEarlyRollout,
  geminiSession,
  miniSweAgentV2Traj,
  openHandsTrajectory,
} from "./fixtures-agents";

const story = { turns: 6 };
const FILES: [TraceFormat, string, string][] = [
  ["openhands", "trajectories/run-1.json", openHandsTrajectory(story)],
  ["aider", "repo/.aider.chat.history.md", aiderHistory(story)],
  ["gemini-cli", "tmp/9f2c/chats/session-1.json", geminiSession(story)],
  ["gemini-cli", "tmp/9f2c/chats/session-1.jsonl", geminiSession({ ...story, jsonl: true })],
  ["codex", "sessions/2026/11/01/rollout-current.jsonl", codexCurrentRollout(story)],
  ["mini-swe-agent", "runs/task-1.traj.json", miniSweAgentV2Traj(story)],
];
const prices = priceBook(seed.models as Parameters<typeof priceBook>[0]);

describe("OpenHands, aider, Gemini CLI and Codex of every release", () => {
  it.each(FILES)("is detected from its content: %s (%s)", (format, _path, text) => {
    expect(detectFormat(text)).toBe(format);
  });

  it.each(FILES)("parses one call per model answer, with the usage the file records: %s (%s)", (format, path, text) => {
    const { trace, issues } = parseTranscript(text, path);
    expect(issues).toEqual([]);
    expect(trace?.format).toBe(format);
    expect(trace?.calls).toHaveLength(6);
    expect(trace!.calls.every((c) => c.usage !== null && c.model !== "unknown")).toBe(true);
    if (format !== "aider") {
      const outputs = trace!.parts.filter((p) => p.kind === "tool_output");
      expect(outputs).toHaveLength(6);
      expect(outputs.every((p) => p.tool !== null && p.tool !== "unknown")).toBe(true);
    }
    trace!.calls
      .slice(1)
      .forEach((call, i) => expect(call.keep).toBe(trace!.calls[i]!.keep + trace!.calls[i]!.added.length));
  });

  it("reads Gemini CLI's prompt count as holding the cached tokens, and bills its thoughts as output", () => {
    const { trace } = parseTranscript(geminiSession(story), "session-1.json");
    const second = trace!.calls[1]!.usage!;
    expect(second.cache_read).toBeGreaterThan(0);
    expect(second.output).toBe(31);
    expect(trace!.notes).toContain("messages with no model input, by type: info 6");
  });

  it("keeps a Gemini CLI message written again under its id once, with its latest fields, and honours a rewind", () => {
    const lines = geminiSession({ turns: 3, jsonl: true }).split("\n");
    const first = JSON.parse(lines[2]!) as Record<string, unknown>;
    // The writer appends the whole message again when its tokens arrive.
    lines.splice(3, 0, JSON.stringify({ ...first, content: "rewritten" }));
    lines.push(JSON.stringify({ $rewindTo: "g2" }));
    const { trace, issues } = parseTranscript(lines.join("\n"), "session.jsonl");
    expect(issues).toEqual([]);
    expect(trace!.calls).toHaveLength(2);
    expect(trace!.parts.some((p) => p.text === "rewritten")).toBe(true);
    expect(trace!.notes).toContain("1 rewinds ($rewindTo): the messages they dropped are left out");
  });

  it("takes an OpenHands call's model and usage from its model response, and the recorded cost from the last metrics", () => {
    const { trace } = parseTranscript(openHandsTrajectory(story), "run.json");
    expect(trace!.calls[0]!.model).toBe("claude-sonnet-4-5-20250929");
    expect(trace!.totals!.cost_usd).toBeGreaterThan(0);
    expect(trace!.notes.some((n) => n.startsWith("events with no model input, by type: agent_state_changed 1"))).toBe(
      true,
    );
    const result = replayTrace(trace!, prices);
    expect("skipped" in result).toBe(false);
    if (!("skipped" in result)) expect(Math.abs(result.total_check!.error_pct)).toBeLessThan(40);
  });

  it("takes an OpenHands call's usage from the step in the running totals where the response has none, and forgets what a condensation forgot", () => {
    const events = JSON.parse(openHandsTrajectory({ turns: 4 })) as Record<string, unknown>[];
    for (const e of events) {
      const meta = e.tool_call_metadata as { model_response: Record<string, unknown> } | undefined;
      if (meta !== undefined) delete meta.model_response.usage;
    }
    // Forget the first two command/output pairs (ids 3–6), keep a summary in their place.
    events.splice(7, 0, {
      id: 99,
      source: "agent",
      action: "condensation",
      args: { forgotten_events_start_id: 3, forgotten_events_end_id: 6, summary: "Read two files." },
    });
    const { trace } = parseTranscript(JSON.stringify(events), "run.json");
    expect(trace!.calls).toHaveLength(4);
    expect(trace!.calls.map((c) => c.usage!.output)).toEqual([30, 31, 32, 33]);
    expect(trace!.notes).toContain(
      "4 calls' usage taken as the step in accumulated_token_usage (no model_response usage)",
    );
    // The call after the condensation keeps only the system prompt and the task of the call before.
    expect(trace!.calls[2]!.keep).toBe(2);
    expect(trace!.parts.some((p) => p.text === "Read two files.")).toBe(true);
  });

  it("reads aider's rounded counts with how far each may be off, and holds the bill check to that bound", () => {
    const { trace } = parseTranscript(aiderHistory(story), ".aider.chat.history.md");
    const errors = trace!.calls.map((c) => c.usage_error!.input);
    // 3,0xx tokens print as "3.0k" (± 50); 10,000 and more as "12k" (± 500).
    expect(errors.every((e) => e === 50 || e === 500)).toBe(true);
    expect(trace!.totals!.cost_rounding_usd).toBeGreaterThan(0);
    const result = replayTrace(trace!, prices);
    if ("skipped" in result) throw new Error(result.skipped);
    expect(result.total_check!.within_bound).toBe(true);
    expect(Math.abs(result.total_check!.modelled_usd - result.total_check!.recorded_usd)).toBeLessThanOrEqual(
      result.total_check!.bound_usd!,
    );
  });

  it("flags an aider bill that rounding cannot explain", () => {
    const text = aiderHistory(story).replace(
      /\$([\d.]+) session\./g,
      (_m, v: string) => `$${(Number(v) * 3).toFixed(2)} session.`,
    );
    const result = replayTrace(parseTranscript(text, ".aider.chat.history.md").trace!, prices);
    if ("skipped" in result) throw new Error(result.skipped);
    expect(result.total_check!.within_bound).toBe(false);
    expect(result.notes.some((n) => n.includes("OUTSIDE the ±$"))).toBe(true);
  });

  it("starts each run of aider in one history from an empty chat", () => {
    const text = `${aiderHistory({ turns: 2 })}\n${aiderHistory({ turns: 2 })}`;
    const { trace } = parseTranscript(text, ".aider.chat.history.md");
    expect(trace!.calls).toHaveLength(4);
    expect(trace!.calls[2]!.keep).toBe(0);
    expect(trace!.notes[0]).toMatch(/^2 runs of aider/);
  });

  it("counts a current Codex rollout's unknown item and event types in one note, never an issue per line", () => {
    const { trace, issues } = parseTranscript(codexCurrentRollout(story), "rollout.jsonl");
    expect(issues).toEqual([]);
    expect(trace!.notes).toContain(
      "records with no model input the parser does not know, by type (left out): response_item ghost_snapshot 6",
    );
  });

  it("reads an early Codex rollout (no envelope), which names no model: --model prices it and the notes say so", () => {
    const text = codexEarlyRollout(story);
    expect(detectFormat(text)).toBe("codex");
    const bare = parseTranscript(text, "rollout-early.jsonl");
    expect(bare.issues).toEqual([]);
    expect(bare.trace!.calls).toHaveLength(6);
    expect(bare.trace!.calls.every((c) => c.model === "unknown")).toBe(true);
    const result = replayTrace(bare.trace!, prices);
    expect("skipped" in result && result.skipped).toBe("the transcript names no model: pass --model NAME to price it");
    const priced = parseTranscript(text, "rollout-early.jsonl", undefined, { model: "gpt-5" });
    expect(priced.trace!.model_supplied).toBe(true);
    expect(priced.trace!.notes).toContain("priced as gpt-5 (--model): the transcript names no model");
    expect(priced.trace!.session).toBe("codex-early-1");
    expect(priced.trace!.parts.filter((p) => p.kind === "tool_output")).toHaveLength(6);
  });

  it("records each response of a parallel batch once, however many of its calls the Gemini CLI writer copied it to", () => {
    const doc = JSON.parse(geminiSession({ turns: 1 })) as { messages: Record<string, unknown>[] };
    const gemini = doc.messages[1] as { toolCalls: Record<string, unknown>[]; content: unknown };
    const first = gemini.toolCalls[0]!;
    const second = { ...first, id: "call_b", args: { command: "ls" } };
    const both = [
      (first.result as unknown[])[0],
      { functionResponse: { id: "call_b", name: "run_shell_command", response: { output: "a.py" } } },
    ];
    gemini.toolCalls = [
      { ...first, result: both },
      { ...second, result: both },
    ];
    // Newer writers keep the thoughts in the content as well, marked `thought`.
    gemini.content = [{ text: "Reading", thought: true }, { text: "Here it is." }];
    const { trace } = parseTranscript(JSON.stringify(doc), "session.json");
    expect(trace!.parts.filter((p) => p.kind === "tool_output").map((p) => p.call_id)).toEqual(["call_0", "call_b"]);
    expect(trace!.parts.filter((p) => p.kind === "assistant").map((p) => p.text)).toEqual([
      "Reading\nI read src/mod_0.py.",
      "Here it is.",
    ]);
  });

  it("reads mini-swe-agent version 2's tool calls and tool messages, and leaves its exit message out", () => {
    const { trace } = parseTranscript(miniSweAgentV2Traj(story), "task.traj.json");
    expect(trace!.parts.filter((p) => p.kind === "tool_call").every((p) => p.tool === "bash")).toBe(true);
    expect(trace!.parts.filter((p) => p.kind === "tool_output").every((p) => p.tool === "bash")).toBe(true);
    expect(trace!.notes).toContain('1 "exit" messages (the run\'s end, never sent to the model) left out');
    expect(trace!.calls[1]!.at).toBe(1_780_000_030_000);
  });

  it("reads mini-swe-agent version 2's text mode, whose command block is mswea_bash_command", () => {
    const doc = JSON.parse(miniSweAgentV2Traj({ turns: 2 })) as { messages: Record<string, unknown>[] };
    for (const m of doc.messages) {
      if (m.role !== "assistant") continue;
      const args = JSON.parse((m.tool_calls as { function: { arguments: string } }[])[0]!.function.arguments);
      m.content = `THOUGHT: read it.\n\n\`\`\`mswea_bash_command\n${args.command}\n\`\`\``;
      delete m.tool_calls;
    }
    for (const m of doc.messages) if (m.role === "tool") m.role = "user";
    const { trace } = parseTranscript(JSON.stringify(doc), "task.traj.json");
    expect(trace!.parts.filter((p) => p.kind === "tool_call").map((p) => p.text)).toEqual([
      "cat src/mod_0.py",
      "cat src/mod_1.py",
    ]);
    expect(trace!.parts.filter((p) => p.kind === "tool_output")).toHaveLength(2);
  });
});
