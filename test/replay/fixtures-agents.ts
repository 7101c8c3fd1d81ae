/**
 * @module test/replay/fixtures-agents
 *
 * The story of ./fixtures.ts as OpenHands, aider, Gemini CLI and Codex's
 * releases write it, from each writer's source (never copied from a real
 * file): an OpenHands event list, an aider chat history with its rounded
 * usage reports, a Gemini CLI session (the JSON document or the JSONL
 * log), and Codex rollouts of an early release (no envelope, no model) and
 * a current one (a `ghost_snapshot` each turn).
 *
 * @example
 * aiderHistory({ turns: 4 }) // .aider.chat.history.md text
 */
import { type Story, TASK, TOKENS_PER_CHAR, iso, storySteps } from "./fixtures";

const tok = (s: string) => Math.round(s.length * TOKENS_PER_CHAR);
/** The system prompt's tokens, which none of these files shows. */
const SYSTEM = 2_000;

/** Each call's prompt tokens (all of it: system, task, and every earlier answer, call and output) and output tokens. */
function promptTokens(story: Story): { prompt: number; output: number }[] {
  let prompt = SYSTEM + tok(TASK);
  const steps = storySteps(story);
  return steps.map((step, k) => {
    if (k > 0) prompt += tok(steps[k - 1]!.answer) + tok(steps[k - 1]!.command) + tok(steps[k - 1]!.output);
    return { prompt, output: 30 + k };
  });
}

/** aider's `format_tokens`. */
function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  return `${Math.round(n / 1000)}k`;
}

/** aider's `format_cost`. */
function formatCost(v: number): string {
  if (v === 0) return "0.00";
  if (v >= 0.01) return v.toFixed(2);
  return v.toFixed(Math.max(2, 2 - Math.floor(Math.log10(v))));
}

/** An aider chat history: gpt-4o at $2.50 / $10 per million, its usage reports rounded as aider rounds them. */
export function aiderHistory(story: Story = {}): string {
  const out = [
    "",
    "# aider chat started at 2026-11-01 10:00:00",
    "",
    "> aider --model gpt-4o",
    "> Aider v0.86.1",
    "> Main model: gpt-4o with diff edit format",
    "> Weak model: gpt-4o-mini",
    "> Git repo: .git with 12 files",
    "",
  ];
  let session = 0;
  const usage = promptTokens(story);
  storySteps(story).forEach((step, k) => {
    out.push(k === 0 ? `#### ${TASK}` : `#### /run ${step.command}`, "");
    const u = usage[k]!;
    const cost = (u.prompt * 2.5 + u.output * 10) / 1e6;
    session += cost;
    out.push(step.answer, "", "```", step.output.slice(0, 200), "```", "");
    out.push(
      `> Tokens: ${formatTokens(u.prompt)} sent, ${formatTokens(u.output)} received. Cost: $${formatCost(cost)} message, $${formatCost(session)} session.  `,
      "> Applied edit to src/a.py  ",
      "",
    );
  });
  return out.join("\n");
}

/** A Gemini CLI session: each call's tokens as gemini-cli-core records them; the JSON document, or the JSONL log. */
export function geminiSession(story: Story & { jsonl?: boolean } = {}): string {
  const model = story.model ?? "gemini-2.5-pro";
  const usage = promptTokens(story);
  const messages: Record<string, unknown>[] = [];
  const steps = storySteps(story);
  if (steps.length > 0) messages.push({ id: "u0", timestamp: iso(story, 0), type: "user", content: [{ text: TASK }] });
  steps.forEach((step, k) => {
    const u = usage[k]!;
    const cached = k === 0 ? 0 : usage[k - 1]!.prompt;
    messages.push({
      id: `g${k}`,
      timestamp: iso(story, k),
      type: "gemini",
      content: step.answer,
      model,
      thoughts: [{ subject: "Reading", description: `I read ${step.file}.`, timestamp: iso(story, k) }],
      tokens: { input: u.prompt, output: u.output - 5, cached, thoughts: 5, tool: 0, total: u.prompt + u.output },
      toolCalls: [
        {
          id: `call_${k}`,
          name: "run_shell_command",
          args: { command: step.command },
          result: [
            { functionResponse: { id: `call_${k}`, name: "run_shell_command", response: { output: step.output } } },
          ],
          status: "success",
          timestamp: iso(story, k),
        },
      ],
    });
    messages.push({ id: `i${k}`, timestamp: iso(story, k), type: "info", content: "Tool ran." });
  });
  const meta = {
    sessionId: "gemini-session-1",
    projectHash: "9f2c",
    startTime: iso(story, 0),
    lastUpdated: iso(story, 9),
  };
  if (story.jsonl !== true) return JSON.stringify({ ...meta, messages }, null, 2);
  return [meta, ...messages].map((m) => JSON.stringify(m)).join("\n");
}

/** An OpenHands trajectory: CodeAct's function calls, LiteLLM's usage on each response, running metrics. */
export function openHandsTrajectory(story: Story = {}): string {
  const model = story.model ?? "claude-sonnet-4-5-20250929";
  const usage = promptTokens(story);
  const events: unknown[] = [
    {
      id: 0,
      timestamp: iso(story, 0),
      source: "agent",
      message: "system",
      action: "system",
      args: { content: "You are OpenHands agent." },
    },
    { id: 1, timestamp: iso(story, 0), source: "user", message: TASK, action: "message", args: { content: TASK } },
    {
      id: 2,
      timestamp: iso(story, 0),
      source: "environment",
      observation: "agent_state_changed",
      content: "",
      extras: { agent_state: "running" },
    },
  ];
  let id = 3;
  let prompt = 0;
  let completion = 0;
  let cost = 0;
  storySteps(story).forEach((step, k) => {
    const u = usage[k]!;
    prompt += u.prompt;
    completion += u.output;
    cost += (u.prompt * 3 + u.output * 15) / 1e6;
    const callId = `toolu_${k}`;
    const response = {
      id: `chatcmpl-${k}`,
      model,
      choices: [
        {
          message: {
            content: step.answer,
            tool_calls: [
              { id: callId, function: { name: "execute_bash", arguments: JSON.stringify({ command: step.command }) } },
            ],
          },
        },
      ],
      usage: { prompt_tokens: u.prompt, completion_tokens: u.output },
    };
    const meta = {
      function_name: "execute_bash",
      tool_call_id: callId,
      model_response: response,
      total_calls_in_response: 1,
    };
    events.push({
      id: id++,
      timestamp: iso(story, k),
      source: "agent",
      message: `Running command: ${step.command}`,
      action: "run",
      tool_call_metadata: meta,
      llm_metrics: {
        accumulated_cost: cost,
        accumulated_token_usage: {
          model,
          prompt_tokens: prompt,
          completion_tokens: completion,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
        },
      },
      args: { command: step.command, thought: step.answer },
    });
    events.push({
      id: id++,
      timestamp: iso(story, k),
      source: "agent",
      message: "Command finished",
      cause: id - 2,
      observation: "run",
      tool_call_metadata: meta,
      content: step.output,
      extras: { command: step.command },
    });
  });
  return JSON.stringify(events, null, 2);
}

/** A Codex rollout of an early release: the metadata line bare, items without the envelope, no model, no usage. */
export function codexEarlyRollout(story: Story = {}): string {
  const lines: unknown[] = [
    { id: "codex-early-1", timestamp: iso(story, 0), instructions: null, git: { branch: "main" } },
    { record_type: "state" },
    { type: "message", role: "user", content: [{ type: "input_text", text: TASK }] },
  ];
  storySteps(story).forEach((step, k) => {
    lines.push({ type: "reasoning", id: `rs_${k}`, summary: [{ type: "summary_text", text: step.answer }] });
    lines.push({
      type: "function_call",
      name: "shell",
      arguments: JSON.stringify({ command: ["bash", "-lc", step.command] }),
      call_id: `call_${k}`,
    });
    lines.push({ record_type: "state" });
    lines.push({
      type: "function_call_output",
      call_id: `call_${k}`,
      output: JSON.stringify({ output: step.output, metadata: { exit_code: 0 } }),
    });
  });
  return lines.map((l) => JSON.stringify(l)).join("\n");
}

/** A Codex rollout of a current release: a `ghost_snapshot` and an event type the parser does not use in each turn. */
export function codexCurrentRollout(story: Story = {}): string {
  const model = story.model ?? "gpt-5";
  const usage = promptTokens(story);
  const line = (k: number, type: string, payload: unknown) => ({ timestamp: iso(story, k), type, payload });
  const lines: unknown[] = [
    line(0, "session_meta", { id: "codex-current-1", cwd: "/work", cli_version: "0.98.0", originator: "codex_cli_rs" }),
    line(0, "response_item", { type: "message", role: "user", content: [{ type: "input_text", text: TASK }] }),
    line(0, "turn_context", { cwd: "/work", model, effort: "medium" }),
  ];
  let total = 0;
  storySteps(story).forEach((step, k) => {
    const u = usage[k]!;
    const cached = k === 0 ? 0 : usage[k - 1]!.prompt;
    total += u.prompt + u.output;
    lines.push(line(k, "response_item", { type: "ghost_snapshot", ghost_commit: { id: `g${k}`, parent: null } }));
    lines.push(
      line(k, "response_item", {
        type: "reasoning",
        summary: [{ type: "summary_text", text: step.answer }],
        encrypted_content: null,
      }),
    );
    lines.push(
      line(k, "response_item", {
        type: "function_call",
        name: "shell_command",
        arguments: JSON.stringify({ command: step.command }),
        call_id: `call_${k}`,
      }),
    );
    lines.push(
      line(k, "event_msg", {
        type: "token_count",
        info: {
          total_token_usage: { total_tokens: total },
          last_token_usage: { input_tokens: u.prompt, cached_input_tokens: cached, output_tokens: u.output },
        },
      }),
    );
    lines.push(line(k, "event_msg", { type: "agent_reasoning", text: step.answer }));
    lines.push(line(k, "response_item", { type: "function_call_output", call_id: `call_${k}`, output: step.output }));
  });
  return lines.map((l) => JSON.stringify(l)).join("\n");
}

/** A mini-swe-agent version 2 trajectory: the command as a tool call, its output a "tool" message, an "exit" at the end. */
export function miniSweAgentV2Traj(story: Story = {}): string {
  const usage = promptTokens(story);
  const messages: unknown[] = [
    { role: "system", content: "You are a helpful assistant that can interact with a computer." },
    { role: "user", content: TASK },
  ];
  let cost = 0;
  storySteps(story).forEach((step, k) => {
    const u = usage[k]!;
    const callCost = (u.prompt * 1.25 + u.output * 10) / 1e6;
    cost += callCost;
    messages.push({
      role: "assistant",
      content: step.answer,
      tool_calls: [
        {
          id: `call_${k}`,
          type: "function",
          function: { name: "bash", arguments: JSON.stringify({ command: step.command }) },
        },
      ],
      extra: {
        actions: [{ command: step.command, tool_call_id: `call_${k}` }],
        response: { created: 1_780_000_000 + k * 30, usage: { prompt_tokens: u.prompt, completion_tokens: u.output } },
        cost: callCost,
        timestamp: 1_780_000_000 + k * 30,
      },
    });
    messages.push({ role: "tool", tool_call_id: `call_${k}`, content: step.output });
  });
  messages.push({ role: "exit", content: "", extra: { exit_status: "Submitted", submission: "" } });
  return JSON.stringify({
    trajectory_format: "mini-swe-agent-1.1",
    info: {
      mini_version: "2.4.6",
      exit_status: "Submitted",
      model_stats: { instance_cost: cost, api_calls: usage.length },
      config: { model: { model_name: "gpt-5" } },
    },
    messages,
  });
}
