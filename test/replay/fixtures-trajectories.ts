/**
 * @module test/replay/fixtures-trajectories
 *
 * The story of ./fixtures.ts as the trajectory formats write it: SWE-agent,
 * mini-swe-agent and ATIF, from each format's documented fields (never
 * copied from a real one). Import them from ./fixtures.ts.
 *
 * @example
 * sweAgentTraj({ turns: 6 }) // .traj JSON text
 */
import { type Story, TASK, TOKENS_PER_CHAR, anthropicUsage, iso, storySteps } from "./fixtures";

/** A SWE-agent .traj: history with observations, trajectory steps, and only the file's totals. */
export function sweAgentTraj(story: Story = {}): string {
  const system = "You are an autonomous programmer working in a shell.";
  const history: unknown[] = [
    { role: "system", content: system, agent: "main", message_type: "system_prompt" },
    { role: "user", content: TASK, agent: "main", message_type: "observation" },
  ];
  const trajectory: unknown[] = [];
  let sent = 0;
  let chars = system.length + TASK.length;
  for (const step of storySteps(story)) {
    sent += Math.round(chars * TOKENS_PER_CHAR);
    const content = `${step.answer}\n\n${step.command}`;
    history.push({
      role: "assistant",
      content,
      thought: step.answer,
      action: step.command,
      agent: "main",
      message_type: "action",
    });
    history.push({ role: "user", content: step.output, agent: "main", message_type: "observation" });
    trajectory.push({
      action: step.command,
      observation: step.output,
      response: content,
      thought: step.answer,
      execution_time: 0.1,
      state: {},
    });
    chars += content.length + step.output.length;
  }
  const replay_config = JSON.stringify({ agent: { model: { name: story.model ?? "claude-sonnet-4-5" } } });
  return JSON.stringify({
    environment: "swe_main",
    trajectory,
    history,
    info: {
      exit_status: "submitted",
      model_stats: { instance_cost: 0, tokens_sent: sent, tokens_received: 300, api_calls: trajectory.length },
    },
    replay_config,
  });
}

/** A mini-swe-agent .traj.json: messages with LiteLLM usage (OpenAI-style cached tokens). */
export function miniSweAgentTraj(story: Story = {}): string {
  const usage = anthropicUsage(story);
  const messages: unknown[] = [
    { role: "system", content: "You are a helpful assistant that can interact with a computer." },
    { role: "user", content: TASK },
  ];
  storySteps(story).forEach((step, k) => {
    const u = usage[k]!;
    const prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    const response = {
      id: `chatcmpl-${k}`,
      model: story.model ?? "gpt-5-mini",
      usage: {
        prompt_tokens: prompt,
        completion_tokens: u.output_tokens,
        total_tokens: prompt + u.output_tokens,
        prompt_tokens_details: { cached_tokens: u.cache_read_input_tokens },
      },
    };
    messages.push({
      role: "assistant",
      content: `THOUGHT: ${step.answer}\n\n\`\`\`bash\n${step.command}\n\`\`\``,
      extra: { response },
    });
    messages.push({ role: "user", content: `<returncode>0</returncode>\n<output>\n${step.output}\n</output>` });
  });
  return JSON.stringify({
    info: {
      exit_status: "Submitted",
      submission: "",
      model_stats: { instance_cost: 0.05, api_calls: storySteps(story).length },
      config: { model: { model_name: story.model ?? "gpt-5-mini" } },
      mini_version: "1.0.0",
    },
    messages,
    trajectory_format: "mini-swe-agent-1",
  });
}

/** An ATIF trajectory: system and user steps, then agent steps with metrics and observations. */
export function atifTrajectory(story: Story = {}): string {
  const usage = anthropicUsage(story);
  const steps: unknown[] = [{ step_id: 1, timestamp: iso(story, 0), source: "user", message: TASK }];
  storySteps(story).forEach((step, k) => {
    const u = usage[k]!;
    const prompt = u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
    steps.push({
      step_id: k + 2,
      timestamp: iso(story, k),
      source: "agent",
      message: step.answer,
      tool_calls: [{ tool_call_id: `call_${k}`, function_name: "read_file", arguments: { path: step.file } }],
      observation: { results: [{ source_call_id: `call_${k}`, content: step.output }] },
      metrics: {
        prompt_tokens: prompt,
        completion_tokens: u.output_tokens,
        cached_tokens: u.cache_read_input_tokens,
        extra: { cache_creation_input_tokens: u.cache_creation_input_tokens },
      },
    });
  });
  return JSON.stringify({
    schema_version: "ATIF-v1.4",
    session_id: "atif-session-1",
    agent: { name: "synthetic-agent", version: "0.1.0", model_name: story.model ?? "claude-sonnet-4-5" },
    steps,
    final_metrics: { total_steps: steps.length },
  });
}
