/**
 * What both hook commands share: the gate they ask, from the environment the
 * agent's CLI gives its hooks, and the stub that says how long its original
 * is kept. docs/integrating/claude-code.md.
 */
import { createGateClient, type GateClient } from "./index.js";
import type { HookStore } from "./hook-store.js";
import { readRegularFile } from "./private-fs.js";
import { defaultStub, type StubInfo } from "./stub.js";
import { reportTranscript } from "./transcript-report.js";

/** The longest transcript a session's end reads (a longer one is reported as unreadable). */
export const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

/** The environment the hook reads. */
export interface HookEnv {
  gate?: GateClient;
  env?: NodeJS.ProcessEnv;
  onError?: (error: unknown) => void;
}

/**
 * The gate a hook asks, from the environment the agent's CLI gives its hooks (as the Python client
 * reads it): `OFFLOAD_GATE_URL` (required: without it the hook does nothing, so the key never goes to
 * whatever listens on a default port), `OFFLOAD_GATE_API_KEY`, `OFFLOAD_GATE_TIMEOUT_MS` (2 s by
 * default). A decision the gate could not make (down, a wrong key) goes to `onError`, so the hook's
 * debug log says why nothing was offloaded.
 *
 * @example
 * const gate = hookGate({ OFFLOAD_GATE_URL: "http://127.0.0.1:8787" });
 */
export function hookGate(env: NodeJS.ProcessEnv, onError: (error: unknown) => void = () => {}): GateClient {
  if (!env.OFFLOAD_GATE_URL) throw new Error("OFFLOAD_GATE_URL is not set: the hook asks no gate");
  const gate = createGateClient({
    baseUrl: env.OFFLOAD_GATE_URL,
    apiKey: env.OFFLOAD_GATE_API_KEY,
    timeoutMs: Number(env.OFFLOAD_GATE_TIMEOUT_MS) || 2_000,
  });
  return {
    ...gate,
    async decide(request, call) {
      const decision = await gate.decide(request, call);
      if (decision.fallback) onError(new Error(decision.reason));
      return decision;
    },
  };
}

/**
 * The stub for a store: `base` (the default one unless an agent pages its own), and, when the user set a time to live, when its original
 * stops being kept (so the model and the user know a later recall may find nothing).
 *
 * @example
 * const stub = keptStub(store); // (info) => "[offloaded: …] (kept until 2026-12-14T21:00Z)"
 */
export function keptStub(store: HookStore, base: (info: StubInfo) => string = defaultStub): (info: StubInfo) => string {
  const until = store.keptUntil();
  if (until === null) return base;
  const when = `${until.toISOString().slice(0, 16)}Z`;
  return (info) => `${base(info)} (the original is kept until ${when}; after that recall finds nothing)`;
}

/**
 * A hook's `SessionEnd`: reads the session's own transcript (a regular file the user owns, at most
 * MAX_TRANSCRIPT_BYTES) with replay's parser, reports each decision's outcome and the session's bill
 * to the gate, and records the report in the store.
 *
 * @example
 * await reportSessionEnd(store, gate, "/home/me/.claude/projects/p/s.jsonl", { format: "claude-code", sessionId: "s", recallToolName, env }, onError);
 */
export async function reportSessionEnd(
  store: HookStore,
  gate: GateClient,
  transcript: string,
  args: {
    format: string;
    sessionId: string;
    recallToolName: string;
    env: NodeJS.ProcessEnv;
    align?: "call_id" | "tool_order";
  },
  onError: (error: unknown) => void,
): Promise<void> {
  await store.open(transcript);
  const text = (await readRegularFile(transcript, { maxBytes: MAX_TRANSCRIPT_BYTES, ownedByUser: true })).toString(
    "utf8",
  );
  const report = await reportTranscript(
    gate,
    {
      text,
      path: transcript,
      format: args.format,
      sessionId: args.sessionId,
      decisions: await store.decisions(),
      recallToolName: args.recallToolName,
      fallbackModel: args.env.OFFLOAD_GATE_MODEL || undefined,
      align: args.align,
    },
    onError,
  );
  await store
    .recordReport({ outcomes: report.outcomes?.ok ?? null, session: report.session?.ok ?? null })
    .catch(onError);
}
