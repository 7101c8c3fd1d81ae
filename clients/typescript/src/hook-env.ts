/**
 * What both hook commands share: the gate they ask, from the environment the
 * agent's CLI gives its hooks, and the stub that says how long its original
 * is kept. docs/integrating/claude-code.md.
 */
import { createGateClient, type GateClient } from "./index.js";
import type { HookStore } from "./hook-store.js";
import { defaultStub, type StubInfo } from "./stub.js";

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
