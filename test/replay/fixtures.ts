/**
 * @module test/replay/fixtures
 *
 * Synthetic transcripts in every format replay reads, written from each
 * format's documented fields (never copied from a real one). Each session
 * is the same story: a task, then `turns` tool calls, each reading a file
 * (`src/mod_<k>.py`) whose output is `outputChars` characters, a file read
 * twice, and an answer quoting a line of one output. Usage, where the format
 * has it, is what a provider would report for that story with a true size of
 * `TOKENS_PER_CHAR` tokens per character and a fixed system prompt of
 * `SYSTEM_TOKENS`, cached by Anthropic's rules.
 *
 * @example
 * claudeCodeSession({ turns: 6 }) // JSONL text
 */

/** True tokens per character of the synthetic text (chars ÷ 4 undercounts it by half). */
export const TOKENS_PER_CHAR = 0.5;
/** Tokens of the system prompt and tool schemas, which no file shows. */
export const SYSTEM_TOKENS = 3_000;
/** The line the answer of turn 3 quotes from output 1. */
export const QUOTED = "def compute_checksum_for_module_1(payload, seed=1):";

export interface Story {
  turns?: number;
  outputChars?: number | ((k: number) => number);
  model?: string;
  /** ms between calls; above 5 minutes the cache expires. */
  gapMs?: number;
  start?: string;
}

interface Step {
  k: number;
  file: string;
  command: string;
  output: string;
  answer: string;
}

/** The story's steps: each output's text, the command that made it, the answer after it. */
export function storySteps(story: Story = {}): Step[] {
  const turns = story.turns ?? 6;
  const size = story.outputChars ?? 4_000;
  return Array.from({ length: turns }, (_, k) => {
    // Turn 4 reads the file of turn 1 again: a recall by the same_file rule.
    const fileNo = k === 4 ? 1 : k;
    const file = `src/mod_${fileNo}.py`;
    const chars = typeof size === "function" ? size(k) : size;
    const lines = [k === 1 ? QUOTED : `def helper_${k}_entry(arg):`];
    let length = lines[0]!.length;
    for (let i = 0; length < chars; i++) {
      const line = `    value_${k}_${i} = transform(arg, ${(i * 7919 + k * 104729) % 100_003})`;
      lines.push(line);
      length += line.length + 1;
    }
    const output = lines.join("\n").slice(0, chars);
    const answer = k === 3 ? `The checksum is defined as:\n${QUOTED}\nso I will read more.` : `Reading ${file} next.`;
    return { k, file, command: `cat ${file}`, output, answer };
  });
}

export const iso = (story: Story, call: number) =>
  new Date(Date.parse(story.start ?? "2026-11-01T10:00:00Z") + call * (story.gapMs ?? 30_000)).toISOString();
export const TASK = "Fix the failing checksum test in src/.";

/**
 * Anthropic usage for each call of the story (call 0 is before any tool
 * output): everything read from the cache up to what the call before sent,
 * the rest written, 2 tokens uncached. Expired caches write everything.
 */
export function anthropicUsage(story: Story = {}) {
  const steps = storySteps(story);
  const gap = story.gapMs ?? 30_000;
  const tok = (s: string) => Math.round(s.length * TOKENS_PER_CHAR);
  let total = SYSTEM_TOKENS + tok(TASK);
  let previous = 0;
  return steps.map((step, k) => {
    if (k > 0)
      total +=
        tok(steps[k - 1]!.answer) + tok(JSON.stringify({ file_path: steps[k - 1]!.file })) + tok(steps[k - 1]!.output);
    const read = k === 0 || gap >= 5 * 60_000 ? 0 : previous;
    previous = total;
    return {
      input_tokens: 2,
      cache_read_input_tokens: read,
      cache_creation_input_tokens: total - read - 2,
      output_tokens: 40 + step.k,
    };
  });
}

/** A Claude Code session JSONL: each answer streamed as two records sharing message.id and requestId. */
export function claudeCodeSession(story: Story = {}): string {
  const model = story.model ?? "claude-sonnet-4-5-20250929";
  const usage = anthropicUsage(story);
  const lines: unknown[] = [{ type: "summary", summary: "Checksum fix", leafUuid: "u0" }];
  const base = { sessionId: "cc-session-1", isSidechain: false, userType: "external", cwd: "/work", version: "2.0.0" };
  lines.push({ ...base, type: "user", uuid: "u1", timestamp: iso(story, 0), message: { role: "user", content: TASK } });
  storySteps(story).forEach((step, k) => {
    const id = `msg_${k}`;
    const at = iso(story, k);
    const u = usage[k];
    lines.push({
      ...base,
      type: "assistant",
      uuid: `a${k}a`,
      requestId: `req_${k}`,
      timestamp: at,
      message: { id, role: "assistant", model, content: [{ type: "text", text: step.answer }], usage: u },
    });
    lines.push({
      ...base,
      type: "assistant",
      uuid: `a${k}b`,
      requestId: `req_${k}`,
      timestamp: at,
      message: {
        id,
        role: "assistant",
        model,
        content: [{ type: "tool_use", id: `toolu_${k}`, name: "Read", input: { file_path: step.file } }],
        usage: u,
      },
    });
    lines.push({
      ...base,
      type: "user",
      uuid: `t${k}`,
      timestamp: at,
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${k}`, content: step.output }] },
    });
  });
  // A subagent's record, left out and counted.
  lines.push({
    ...base,
    isSidechain: true,
    type: "user",
    uuid: "side",
    timestamp: iso(story, 99),
    message: { role: "user", content: "subtask" },
  });
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

/** A Codex rollout: response items, token_count after each call (a repeat included), outputs after. */
export function codexRollout(story: Story = {}): string {
  const model = story.model ?? "gpt-5";
  const usage = anthropicUsage(story);
  const lines: unknown[] = [
    {
      timestamp: iso(story, 0),
      type: "session_meta",
      payload: {
        id: "codex-session-1",
        timestamp: iso(story, 0),
        cwd: "/work",
        originator: "codex_cli_rs",
        cli_version: "0.50.0",
        instructions: null,
      },
    },
    {
      timestamp: iso(story, 0),
      type: "response_item",
      payload: { type: "message", role: "user", content: [{ type: "input_text", text: TASK }] },
    },
    {
      timestamp: iso(story, 0),
      type: "turn_context",
      payload: { cwd: "/work", approval_policy: "on-request", model, effort: "medium", summary: "auto" },
    },
  ];
  let total = 0;
  storySteps(story).forEach((step, k) => {
    const at = iso(story, k);
    const u = usage[k]!;
    const prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    const last = {
      input_tokens: prompt,
      cached_input_tokens: u.cache_read_input_tokens,
      output_tokens: u.output_tokens,
      reasoning_output_tokens: 0,
      total_tokens: prompt + u.output_tokens,
    };
    total += last.total_tokens;
    lines.push({
      timestamp: at,
      type: "response_item",
      payload: { type: "message", role: "assistant", content: [{ type: "output_text", text: step.answer }] },
    });
    lines.push({
      timestamp: at,
      type: "response_item",
      payload: {
        type: "function_call",
        name: "shell",
        arguments: JSON.stringify({ command: ["bash", "-lc", step.command] }),
        call_id: `call_${k}`,
      },
    });
    const info = {
      total_token_usage: { ...last, total_tokens: total },
      last_token_usage: last,
      model_context_window: 272_000,
    };
    lines.push({ timestamp: at, type: "event_msg", payload: { type: "token_count", info } });
    lines.push({ timestamp: at, type: "event_msg", payload: { type: "token_count", info } });
    lines.push({
      timestamp: at,
      type: "response_item",
      payload: {
        type: "function_call_output",
        call_id: `call_${k}`,
        output: JSON.stringify({ output: step.output, metadata: { exit_code: 0 } }),
      },
    });
  });
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

/** The clients' own session log: each call's whole input as parts (sizes and hashes; text where kept). */
export function offloadLog(story: Story = {}): string {
  const usage = anthropicUsage(story);
  const input: unknown[] = [{ kind: "user", chars: TASK.length, hash: "task", text: TASK }];
  return storySteps(story)
    .map((step, k) => {
      const u = usage[k]!;
      const line = JSON.stringify({
        trace: "offload-gate/1",
        session: "log-session-1",
        model: story.model ?? "claude-sonnet-4-5",
        timestamp: iso(story, k),
        input: [...input],
        output_chars: step.answer.length,
        usage: {
          input: u.input_tokens,
          cache_read: u.cache_read_input_tokens,
          cache_write_5m: u.cache_creation_input_tokens,
          cache_write_1h: 0,
          output: u.output_tokens,
        },
      });
      input.push(
        { kind: "assistant", chars: step.answer.length, hash: `answer-${k}`, text: step.answer },
        {
          kind: "tool_call",
          tool: "Read",
          call_id: `c${k}`,
          chars: JSON.stringify({ file_path: step.file }).length,
          hash: `call-${k}`,
          text: JSON.stringify({ file_path: step.file }),
        },
        { kind: "tool_output", tool: "Read", call_id: `c${k}`, chars: step.output.length, hash: `out-${k}` },
      );
      return line;
    })
    .join("\n");
}

export { atifTrajectory, miniSweAgentTraj, sweAgentTraj } from "./fixtures-trajectories";
