/**
 * Plays the adaptive gate's demonstrations (docs/design/learning.md §6;
 * the worlds are in adaptive-demos.ts, the judging in adaptive-judge.ts):
 * each a world played under several policies on the same sessions (common
 * random numbers: every session's dice come from its own seed, drawn before
 * the gate speaks, so only the policy differs). Each policy plays as its own
 * tenant, so each learns from its own ledger only.
 *
 * @module
 */
import { tenantOf, type AdaptiveDemo, type Policy } from "./adaptive-demos";
import {
  bill,
  drawSession,
  missedTokens,
  trueHorizon,
  usd,
  type Prices,
  type Transport,
  type Verdict,
  type World,
} from "./world";

export type { AdaptiveDemo, Policy } from "./adaptive-demos";

export interface PolicyRun {
  policy: Policy;
  tenant: string;
  /** Each session's bill (USD), by session index. */
  bills: number[];
  /** Whether the world's tool was held out in each session, by session index (what the breaker's arms are). */
  held: boolean[];
  /** The session count at the refresh that opened the tool's breaker, and when (ms); null if it never opened. */
  openedAfter: number | null;
  openedAt: number | null;
  /** The tool's breaker as the last refresh left it (learning only). */
  lastBreaker: any;
}

export interface AdaptiveResult {
  demo: AdaptiveDemo;
  sessions: number;
  runs: Map<Policy, PolicyRun>;
  /** The printed figures, one per line. */
  lines: string[];
  /** The same figures under stable keys (`npm run simulate -- --json FILE` writes them as `<id>.<key>`). */
  figures: Figures;
  checks: { name: string; pass: boolean }[];
}

/** A demonstration's figures by stable key: numbers in USD, sessions or shares (0–1); null when not reached. */
export type Figures = Record<string, number | string | boolean | null>;

export interface AdaptiveOptions {
  sessions: number;
  seed: number;
  concurrency: number;
  /** Refreshes (the Cron Trigger's work) per run: the learner and the breaker see the ledger this often. */
  refreshes: number;
}

export async function ok(
  send: Transport,
  method: "GET" | "POST" | "PUT",
  path: string,
  body?: unknown,
  tenant?: string,
) {
  const res = await send(method, path, body, tenant);
  if (res.status !== 200)
    throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body;
}

/** Reports in chunks of 100, retrying items whose decision is not in its shard yet (a write still in flight). */
async function reportAll(send: Transport, path: string, items: unknown[], tenant: string) {
  let pending = items;
  for (let attempt = 0; pending.length > 0 && attempt < 40; attempt++) {
    const retry: unknown[] = [];
    for (let i = 0; i < pending.length; i += 100) {
      const chunk = pending.slice(i, i + 100);
      const body = await ok(send, "POST", path, { items: chunk }, tenant);
      body.results.forEach(
        (r: { status: string }, j: number) => r.status === "unknown_decision" && retry.push(chunk[j]),
      );
    }
    pending = retry;
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What a request says under a policy: the oracle is told the output's tool's true p, the mean h and q; the others leave them to the gate. */
function requestFor(
  w: World,
  policy: Policy,
  session: ReturnType<typeof drawSession>,
  output: { tokens: number; tool: string },
) {
  const recall = w.second !== undefined && output.tool === w.second.tool ? w.second.recall : w.recall;
  return {
    model_name: w.model,
    output_tokens: output.tokens,
    session_id: session.id,
    tool_name: output.tool,
    ...(w.mode === "cache_aware" ? { context_tokens: session.context } : {}),
    ...(w.recallTokens === undefined
      ? {}
      : { recall_input_tokens: w.recallTokens[0], recall_output_tokens: w.recallTokens[1] }),
    ...(policy === "oracle" ? { recall_probability: recall, horizon: Math.trunc(trueHorizon(w)) } : {}),
    ...(policy === "oracle" && w.mode === "cache_aware" ? { cache_hit_rate: w.cacheHitRate } : {}),
  };
}

/** Plays every session of a world under one policy, as its own tenant, refreshing its learning as the Cron Trigger would. */
export async function playPolicy(
  demo: AdaptiveDemo,
  policy: Policy,
  send: Transport,
  options: AdaptiveOptions,
  prices: Prices,
): Promise<PolicyRun> {
  const w = demo.world;
  const tenant = tenantOf(demo, policy);
  const run: PolicyRun = { policy, tenant, bills: [], held: [], openedAfter: null, openedAt: null, lastBreaker: null };
  const threshold = w.threshold === undefined ? {} : { large_offload_threshold_tokens: w.threshold };
  await ok(send, "PUT", "/v1/admin/config", {
    pricing_mode: w.mode,
    holdout_fraction: w.holdoutFraction,
    learning_enabled: policy === "learning",
    ...threshold,
    ...demo.config,
  });
  const batch = Math.max(1, Math.ceil(options.sessions / options.refreshes));
  for (let start = 0; start < options.sessions; start += batch) {
    const outcomes: unknown[] = [];
    const bills: unknown[] = [];
    let next = start;
    const end = Math.min(options.sessions, start + batch);
    const agent = async () => {
      for (let index = next++; index < end; index = next++) {
        const session = drawSession(w, index, options.seed);
        let verdicts: Verdict[] = session.outputs.map(() => ({
          decision_id: "",
          fire: false,
          stub_tokens: 0,
          recall_input_tokens: 0,
          recall_output_tokens: 0,
        }));
        if (policy !== "never" && session.outputs.length > 0) {
          const body = await ok(
            send,
            "POST",
            "/v1/gate/batch",
            { items: session.outputs.map((o) => requestFor(w, policy, session, o)) },
            tenant,
          );
          verdicts = body.decisions.map((d: any) => ({ decision_id: d.decision_id, fire: d.fire, ...d.inputs }));
          run.held[index] = body.decisions.some(
            (d: any, i: number) => d.reason_code === "holdout" && session.outputs[i]?.tool === w.tool,
          );
        }
        const { usage, outcomes: reported } = bill(w, session, verdicts);
        run.bills[index] = usd(prices, usage);
        if (policy === "never") continue;
        outcomes.push(...reported);
        // The covariate the breaker regresses the bill on (CUPED): drawn before the gate speaks.
        bills.push({
          session_id: session.id,
          model_name: w.model,
          turns: w.turns,
          usage,
          covariate: missedTokens(session),
        });
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, agent));
    if (policy === "never") continue;
    await reportAll(send, "/v1/outcomes", outcomes, tenant);
    await reportAll(send, "/v1/sessions", bills, tenant);
    if (policy !== "learning") continue;
    const refresh = await ok(send, "POST", `/v1/admin/learning/refresh?tenant=${tenant}`, {});
    run.lastBreaker =
      (await ok(send, "GET", `/v1/admin/learning?tenant=${tenant}`)).tools.find((t: any) => t.tool_name === w.tool)
        ?.breaker ?? null;
    const opened = refresh.breaker_changes.find((c: any) => c.tool_name === w.tool && c.to === "open");
    if (opened && run.openedAfter === null) {
      run.openedAfter = end;
      run.openedAt = refresh.computed_at;
    }
  }
  return run;
}
