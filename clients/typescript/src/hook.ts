#!/usr/bin/env node
/**
 * `offload-gate-hook`: offload-gate for agents run as CLIs, through their own
 * command hooks. `offload-gate-hook claude-code` is Claude Code's PostToolUse
 * and SessionEnd hook, `offload-gate-hook gemini-cli` Gemini CLI's AfterTool
 * hook, and `offload-gate-hook recall` the recall tool as a stdio MCP server
 * over the same store (`OFFLOAD_GATE_RECALL_DIR`). A hook reads its JSON on
 * stdin and prints its answer; on any fault it prints nothing (the output
 * goes through unchanged) and exits 0. The process ends at its deadline
 * (`OFFLOAD_GATE_HOOK_TIMEOUT_MS`) whatever is pending. docs/integrating/claude-code.md.
 */
import { claudeCodeHook } from "./hook-claude-code.js";
import { geminiCliHook } from "./hook-gemini-cli.js";
import { findOriginal, storeRoot } from "./hook-store.js";
import { isProgram } from "./is-program.js";

// Claude Code's hook input is small, but a Gemini CLI AfterTool input carries the whole result.
const MAX_STDIN_BYTES = 256 * 1024 * 1024;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STDIN_BYTES) throw new Error("the hook input is over 256 MB");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The hook's whole time, from `OFFLOAD_GATE_HOOK_TIMEOUT_MS` (20 s by default).
 *
 * @example
 * hookDeadlineMs({ OFFLOAD_GATE_HOOK_TIMEOUT_MS: "3000" }) // 3000
 */
export function hookDeadlineMs(env: NodeJS.ProcessEnv): number {
  const ms = Number(env.OFFLOAD_GATE_HOOK_TIMEOUT_MS);
  return Number.isFinite(ms) && ms > 0 ? ms : 20_000;
}

/** Whether a call that holds one of libuv's threads (a file or DNS call) is still running. */
const threadCallPending = () =>
  process
    .getActiveResourcesInfo()
    .some((r) => r === "GetAddrInfoReqWrap" || r === "GetNameInfoReqWrap" || r.startsWith("FSReq"));

/**
 * Ends the process, at most 200 ms from now. Exit waits for the threads behind file and DNS calls
 * (libuv joins them), so when one is still running then (a DNS server that never answers) the
 * process ends by SIGKILL instead: the agent sees a failed hook and keeps the output, now rather
 * than whenever the lookup gives up.
 */
async function exitNow(): Promise<never> {
  for (let waited = 0; threadCallPending() && waited < 200; waited += 5)
    await new Promise((resolve) => setTimeout(resolve, 5));
  if (threadCallPending()) {
    if (process.env.OFFLOAD_GATE_HOOK_DEBUG)
      console.error("offload-gate-hook: killed at the deadline with", process.getActiveResourcesInfo());
    process.kill(process.pid, "SIGKILL");
  }
  process.exit(0);
}

/** Ends the process at the deadline, whatever is pending, printing nothing (the output goes through). */
function endAtDeadline(ms: number): void {
  setTimeout(exitNow, ms).unref();
}

/** Runs one hook, bounded in time: the answer, or "" on a fault or past the deadline. */
export async function runHook(agent: string, stdin: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const deadline = hookDeadlineMs(env);
  const debug = env.OFFLOAD_GATE_HOOK_DEBUG ? (e: unknown) => console.error("offload-gate-hook:", e) : () => {};
  const handle = agent === "claude-code" ? claudeCodeHook : agent === "gemini-cli" ? geminiCliHook : null;
  if (handle === null) return "";
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      handle(JSON.parse(stdin), { env, onError: debug }),
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(""), deadline);
      }),
    ]);
  } catch (error) {
    debug(error);
    return "";
  } finally {
    clearTimeout(timer);
  }
}

async function main(argv: readonly string[]): Promise<void> {
  const [agent] = argv;
  if (agent === "recall") {
    const root = storeRoot(process.env.OFFLOAD_GATE_RECALL_DIR);
    if (root === null) throw new Error("offload-gate-hook recall: set OFFLOAD_GATE_RECALL_DIR (the hooks' store)");
    const { recallMcpServer, recallStdioTransport } = await import("./mcp.js");
    const store = { get: (id: string) => findOriginal(root, id), set: () => {} };
    await recallMcpServer(store).connect(recallStdioTransport());
    return;
  }
  if (agent !== "claude-code" && agent !== "gemini-cli") {
    console.error("usage: offload-gate-hook claude-code | gemini-cli | recall");
    return;
  }
  endAtDeadline(hookDeadlineMs(process.env));
  let answer = "";
  try {
    answer = await runHook(agent, await readStdin());
  } catch {
    answer = "";
  }
  if (answer) process.stdout.write(answer);
  await exitNow();
}

// Run as a program (the package's bin).
if (isProgram(import.meta.url)) {
  main(process.argv.slice(2)).catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(process.argv[2] === "recall" ? 1 : 0);
  });
}
