import { describe, expect, it } from "vitest";
import { detectFormat, EXPECTED_FORMATS, parseTranscript, type TraceFormat } from "../../src/replay";
import {
  atifTrajectory,
  claudeCodeSession,
  codexRollout,
  miniSweAgentTraj,
  offloadLog,
  sweAgentTraj,
} from "./fixtures";

const story = { turns: 6 };
const FILES: [TraceFormat, string, string][] = [
  ["claude-code", "projects/-work/cc-session-1.jsonl", claudeCodeSession(story)],
  ["codex", "sessions/2026/11/01/rollout-2026-11-01T10-00-00-x.jsonl", codexRollout(story)],
  ["swe-agent", "runs/task-1.traj", sweAgentTraj(story)],
  ["mini-swe-agent", "runs/task-1.traj.json", miniSweAgentTraj(story)],
  ["atif", "runs/trajectory.json", atifTrajectory(story)],
  ["offload-log", "logs/session.jsonl", offloadLog(story)],
];

describe("each transcript format", () => {
  it.each(FILES)("is detected from its content: %s", (format, _path, text) => {
    expect(detectFormat(text)).toBe(format);
  });

  it.each(FILES)(
    "parses into one trace with a call per model answer and a tool output per observation: %s",
    (format, path, text) => {
      const { trace, issues } = parseTranscript(text, path);
      expect(issues).toEqual([]);
      expect(trace?.format).toBe(format);
      expect(trace?.calls).toHaveLength(6);
      const outputs = trace!.parts.filter((p) => p.kind === "tool_output");
      expect(outputs).toHaveLength(format === "offload-log" ? 5 : 6);
      // Every output is tied to a named tool, never left as "unknown".
      expect(outputs.every((p) => p.tool !== null && p.tool !== "unknown")).toBe(true);
      // Append-only: each call keeps the whole input of the one before.
      trace!.calls
        .slice(1)
        .forEach((call, i) => expect(call.keep).toBe(trace!.calls[i]!.keep + trace!.calls[i]!.added.length));
    },
  );

  it("takes a streamed Claude Code answer's usage once, from records sharing message.id", () => {
    const { trace } = parseTranscript(claudeCodeSession(story), "s.jsonl");
    // Two records per answer, one call each; its usage is the answer's, not twice it.
    expect(trace!.calls[1]!.usage).toEqual({
      input: 2,
      cache_read: expect.any(Number),
      cache_write_5m: expect.any(Number),
      cache_write_1h: 0,
      output: 41,
    });
    expect(trace!.notes).toContain("1 sidechain records (a subagent's own context) left out");
  });

  it("splits Anthropic's cache writes by TTL where cache_creation says", () => {
    const line = JSON.stringify({
      type: "assistant",
      sessionId: "s",
      timestamp: "2026-11-01T10:00:00Z",
      message: {
        id: "m",
        model: "claude-sonnet-4-5",
        content: [],
        usage: {
          input_tokens: 1,
          cache_creation_input_tokens: 900,
          cache_read_input_tokens: 0,
          output_tokens: 5,
          cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 800 },
        },
      },
    });
    expect(parseTranscript(line, "s.jsonl").trace!.calls[0]!.usage).toEqual({
      input: 1,
      cache_read: 0,
      cache_write_5m: 100,
      cache_write_1h: 800,
      output: 5,
    });
  });

  it("counts a Codex token_count that repeats the totals only once", () => {
    const { trace } = parseTranscript(codexRollout(story), "rollout.jsonl");
    expect(trace!.calls.every((c) => c.usage !== null)).toBe(true);
    expect(trace!.calls[2]!.usage!.cache_read).toBeGreaterThan(0);
  });

  it("names SWE-agent observations by the command that made them and keeps only the file's totals", () => {
    const { trace } = parseTranscript(sweAgentTraj(story), "t.traj");
    expect(trace!.parts.find((p) => p.kind === "tool_output")!.tool).toBe("cat");
    expect(trace!.calls.every((c) => c.usage === null)).toBe(true);
    expect(trace!.totals?.input_tokens).toBeGreaterThan(0);
  });
});

describe("what cannot be read", () => {
  it("reports a broken line by path and number with what was expected, and parses the rest", () => {
    const lines = claudeCodeSession(story).split("\n");
    lines.splice(3, 0, "{not json", JSON.stringify({ type: "mystery", sessionId: "s" }));
    const { trace, issues } = parseTranscript(lines.join("\n"), "p/broken.jsonl");
    expect(issues).toEqual([{ path: "p/broken.jsonl", line: 4, expected: "one JSON object on the line" }]);
    expect(trace!.calls).toHaveLength(6);
    // A record type the parser does not use is counted in a note, never an error.
    expect(trace!.notes).toContainEqual(
      expect.stringMatching(/^records with no model input, by type: .*\bmystery 1\b/),
    );
  });

  it("reports a file that is no known format with the formats it expected, and guesses nothing", () => {
    expect(parseTranscript("just some notes\n", "notes.txt")).toEqual({
      trace: null,
      issues: [{ path: "notes.txt", line: null, expected: EXPECTED_FORMATS }],
    });
    expect(parseTranscript('{"hello": "world"}', "x.json").trace).toBeNull();
  });

  it("reports a JSON document that does not parse", () => {
    const { trace, issues } = parseTranscript(sweAgentTraj(story).slice(0, -5), "cut.traj", "swe-agent");
    expect(trace).toBeNull();
    expect(issues[0]!.expected).toMatch(/^a JSON document/);
  });

  it("reports a transcript with no model call", () => {
    const { trace, issues } = parseTranscript(
      JSON.stringify({ type: "user", sessionId: "s", message: { role: "user", content: "hi" } }),
      "s.jsonl",
    );
    expect(trace).toBeNull();
    expect(issues).toEqual([
      { path: "s.jsonl", line: null, expected: "at least one model call in this claude-code transcript" },
    ]);
  });
});

describe("Claude Code files as they really are", () => {
  const at = (s: number) => new Date(Date.parse("2026-11-01T10:00:00Z") + s * 1_000).toISOString();
  const usage = (read: number, write: number, out: number) => ({
    input_tokens: 3,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: write,
    output_tokens: out,
  });
  const assistant = (id: string, s: number, content: object[], u: object, extra: object = {}) =>
    JSON.stringify({
      type: "assistant",
      sessionId: "main-1",
      timestamp: at(s),
      ...extra,
      message: { id, model: "claude-sonnet-4-5", role: "assistant", content, usage: u },
    });
  const result = (toolUseId: string, s: number, text: string, extra: object = {}) =>
    JSON.stringify({
      type: "user",
      sessionId: "main-1",
      timestamp: at(s),
      ...extra,
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: toolUseId, content: text }] },
    });
  const user = (text: string, extra: object = {}) =>
    JSON.stringify({
      type: "user",
      sessionId: "main-1",
      timestamp: at(0),
      ...extra,
      message: { role: "user", content: text },
    });

  it("counts one call per message.id when a parallel tool call's result sits between its records", () => {
    const lines = [
      user("read both files"),
      assistant(
        "msg_1",
        1,
        [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "a.py" } }],
        usage(0, 5_000, 40),
      ),
      result("t1", 2, "print('a')"),
      assistant(
        "msg_1",
        2,
        [{ type: "tool_use", id: "t2", name: "Read", input: { file_path: "b.py" } }],
        usage(0, 5_000, 90),
      ),
      result("t2", 3, "print('b')"),
      assistant("msg_2", 4, [{ type: "text", text: "Both read." }], usage(5_000, 60, 12)),
    ];
    const { trace, issues } = parseTranscript(lines.join("\n"), "parallel.jsonl");
    expect(issues).toEqual([]);
    expect(trace!.calls).toHaveLength(2);
    // The first call's usage taken once, from its last record (the final output count).
    expect(trace!.calls[0]!.usage).toEqual({
      input: 3,
      cache_read: 0,
      cache_write_5m: 5_000,
      cache_write_1h: 0,
      output: 90,
    });
    expect(trace!.parts.filter((p) => p.kind === "tool_call")).toHaveLength(2);
  });

  it("reads a subagent's file (every record sidechain) as one session keyed by agentId, its parent named", () => {
    const side = { isSidechain: true, agentId: "a7f3" };
    const lines = [
      JSON.stringify({ type: "attachment", sessionId: "main-1", attachment: { type: "deferred_tools_delta" } }),
      user("explore the repo", side),
      assistant(
        "msg_s1",
        1,
        [{ type: "tool_use", id: "t1", name: "Glob", input: { pattern: "**/*.ts" } }],
        usage(0, 4_000, 30),
        side,
      ),
      result("t1", 2, "src/a.ts\nsrc/b.ts", side),
      assistant("msg_s2", 3, [{ type: "text", text: "Two files." }], usage(4_000, 40, 8), side),
      JSON.stringify({ type: "progress", sessionId: "main-1" }),
    ];
    const { trace, issues } = parseTranscript(lines.join("\n"), "agent-a7f3.jsonl");
    expect(issues).toEqual([]);
    expect(trace!.session).toBe("agent-a7f3");
    expect(trace!.parent).toBe("main-1");
    expect(trace!.calls).toHaveLength(2);
    expect(trace!.notes).toContain("records with no model input, by type: attachment 1, progress 1");
  });

  it("restarts the history at a compaction's boundary, as Claude Code writes it", () => {
    const lines = [
      user("read a"),
      assistant(
        "m1",
        1,
        [{ type: "tool_use", id: "t1", name: "Read", input: { file_path: "a.py" } }],
        usage(0, 9_000, 10),
      ),
      result("t1", 2, "x = 1\n".repeat(500)),
      assistant("m2", 3, [{ type: "text", text: "read" }], usage(9_000, 800, 10)),
      JSON.stringify({
        type: "system",
        subtype: "compact_boundary",
        sessionId: "main-1",
        compactMetadata: { trigger: "auto" },
      }),
      user("Summary: a.py sets x.", { isCompactSummary: true }),
      assistant("m3", 4, [{ type: "text", text: "continuing" }], usage(0, 1_200, 10)),
    ];
    const { trace, issues } = parseTranscript(lines.join("\n"), "compacted.jsonl");
    expect(issues).toEqual([]);
    // The call after the boundary keeps nothing of the history before it.
    expect(trace!.calls.map((c) => c.keep)).toEqual([0, 1, 0]);
    expect(trace!.notes).toContain("1 compactions (compact_boundary): the history restarts at each");
  });

  it("detects a file whose first record is of a type the parser does not use", () => {
    const first = JSON.stringify({ type: "queue-operation", operation: "enqueue", sessionId: "main-1" });
    const { trace } = parseTranscript(`${first}\n${user("hi")}\n${assistant("m", 1, [], usage(0, 10, 1))}`, "q.jsonl");
    expect(trace!.format).toBe("claude-code");
  });

  it("prices a transcript that names no model as the one given, and says so", () => {
    const traj = JSON.parse(sweAgentTraj(story)) as { replay_config?: unknown };
    delete traj.replay_config;
    const text = JSON.stringify(traj);
    expect(parseTranscript(text, "x.traj").trace!.calls[0]!.model).toBe("unknown");
    const { trace } = parseTranscript(text, "x.traj", undefined, { model: "gpt-4o" });
    expect(trace!.calls.every((c) => c.model === "gpt-4o")).toBe(true);
    expect(trace!.notes).toContain("priced as gpt-4o (--model): the transcript names no model");
  });
});
