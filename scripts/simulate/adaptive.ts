/**
 * The adaptive gate's demonstrations (docs/design/learning.md §6): D4, D5 and D6,
 * each a world played under several policies on the same sessions (common
 * random numbers: every session's dice come from its own seed, drawn before
 * the gate speaks, so only the policy differs). A policy's savings are the
 * never-stub bill minus its bill, session by session. Each policy plays as
 * its own tenant, so each learns from its own ledger only.
 */
import { toolRow } from "./demo";
import {
  bill,
  drawSession,
  trueHorizon,
  usd,
  WORLDS,
  type Prices,
  type Transport,
  type Verdict,
  type World,
} from "./world";

export type Policy = "never" | "config" | "learning" | "oracle";

export interface AdaptiveDemo {
  id: "D4" | "D4shared" | "D5" | "D6";
  title: string;
  world: World;
  policies: Policy[];
}

/** D6's world: a stubbed output needed again is re-fetched by re-running the tool (60%), which outcomes cannot show. */
export const REFETCH_WORLD: World = {
  id: 6,
  title:
    "a loss the model cannot see: a stubbed output needed again (80%) is re-fetched by re-running the tool 60% of the time",
  tool: "sim6.read_file",
  model: "claude-opus-4-6",
  mode: "cache_aware",
  turns: 8,
  outputChance: 1,
  outputTokens: [11_000, 13_000],
  contextTokens: [120_000, 180_000],
  recall: 0.8,
  cacheHitRate: 0.9,
  holdoutFraction: 0.5,
  refetch: 0.6,
};

/**
 * The shared tenant of issue 34 item 1: a high-recall tool (grep, 6k outputs, recalled 80% of the
 * time: the config fires on it and loses) and a long-horizon one in the same sessions (read_file,
 * 3k outputs, recalled 10%, 26 turns: the oracle fires on every output, the config on none). Before
 * p stopped pooling across tools, read_file inherited grep's p and never fired.
 */
export const SHARED_WORLD: World = {
  id: 7,
  title:
    "one tenant, two tools: grep recalled 80% (the config fires and loses), read_file recalled 10% over a long horizon (the config never fires)",
  tool: "sim7.grep",
  second: { tool: "sim7.read_file", recall: 0.1, outputTokens: [2_800, 3_200] },
  model: "claude-opus-4-6",
  mode: "cache_aware",
  turns: 26,
  outputChance: 0.5,
  outputTokens: [5_500, 6_500],
  contextTokens: [130_000, 170_000],
  recall: 0.8,
  cacheHitRate: 0.9,
  holdoutFraction: 0,
  threshold: 0,
};

const world = (id: number) => WORLDS.find((w) => w.id === id)!;

export const ADAPTIVE_DEMOS: readonly AdaptiveDemo[] = [
  {
    id: "D4",
    title: "wrong priors (demonstration 3's world), no holdout: learning against the oracle",
    world: { ...world(3), holdoutFraction: 0 },
    policies: ["never", "config", "learning", "oracle"],
  },
  {
    id: "D4shared",
    title: SHARED_WORLD.title,
    world: SHARED_WORLD,
    policies: ["never", "config", "learning", "oracle"],
  },
  {
    id: "D5",
    title: "the +94.8% world (demonstration 2's, seed mode): the breaker opens for the losing tool",
    world: world(2),
    policies: ["never", "config", "learning"],
  },
  { id: "D6", title: REFETCH_WORLD.title, world: REFETCH_WORLD, policies: ["never", "config", "learning"] },
];

export interface PolicyRun {
  policy: Policy;
  tenant: string;
  /** Each session's bill (USD), by session index. */
  bills: number[];
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
  figures: string[];
  checks: { name: string; pass: boolean }[];
}

export interface AdaptiveOptions {
  sessions: number;
  seed: number;
  concurrency: number;
  /** Refreshes (the Cron Trigger's work) per run: the learner and the breaker see the ledger this often. */
  refreshes: number;
}

async function ok(send: Transport, method: "GET" | "POST" | "PUT", path: string, body?: unknown, tenant?: string) {
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
  const tenant = `${demo.id.toLowerCase()}-${policy}`;
  const run: PolicyRun = { policy, tenant, bills: [], openedAfter: null, openedAt: null, lastBreaker: null };
  const threshold = w.threshold === undefined ? {} : { large_offload_threshold_tokens: w.threshold };
  await ok(send, "PUT", "/v1/admin/config", {
    pricing_mode: w.mode,
    holdout_fraction: w.holdoutFraction,
    learning_enabled: policy === "learning",
    ...threshold,
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
        }
        const { usage, outcomes: reported } = bill(w, session, verdicts);
        run.bills[index] = usd(prices, usage);
        if (policy === "never") continue;
        outcomes.push(...reported);
        bills.push({ session_id: session.id, model_name: w.model, turns: w.turns, usage });
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

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const money = (x: number) => `${x < 0 ? "−" : "+"}$${Math.abs(x).toFixed(4)}`;
const savingsOf = (runs: Map<Policy, PolicyRun>, policy: Policy, from: number) => {
  const never = runs.get("never")!.bills;
  const bills = runs.get(policy)!.bills;
  return sum(bills.slice(from).map((b, i) => never[from + i]! - b));
};

/**
 * Plays a demonstration under each of its policies and judges it as the
 * note says: D4 by the share of the oracle's savings and the learned ranges,
 * D5 and D6 by the breaker opening and the tool no longer losing after it.
 */
export async function runAdaptive(
  demo: AdaptiveDemo,
  send: Transport,
  options: AdaptiveOptions,
): Promise<AdaptiveResult> {
  const stored = await ok(send, "GET", `/v1/admin/pricing/${demo.world.model}`);
  const prices: Prices = stored.row ?? stored;
  const runs = new Map<Policy, PolicyRun>();
  for (const policy of demo.policies) runs.set(policy, await playPolicy(demo, policy, send, options, prices));
  const half = Math.floor(options.sessions / 2);
  const figures: string[] = [];
  const checks: AdaptiveResult["checks"] = [];
  const learn = runs.get("learning")!;
  if (demo.id === "D4" || demo.id === "D4shared") {
    const oracle = savingsOf(runs, "oracle", half);
    const learned = savingsOf(runs, "learning", half);
    const config = savingsOf(runs, "config", half);
    figures.push(
      `  savings over the second half (${options.sessions - half} sessions): oracle ${money(oracle)}, learning ${money(learned)} (${((100 * learned) / oracle).toFixed(1)}% of the oracle's), learning off ${money(config)} (${((100 * config) / oracle).toFixed(1)}%)`,
    );
    checks.push({
      name: "learning reaches at least 90% of the oracle's savings over the second half",
      pass: learned >= 0.9 * oracle,
    });
  }
  if (demo.id === "D4") {
    const view = await ok(send, "GET", `/v1/admin/learning?tenant=${learn.tenant}`);
    const tool = view.tools.find((t: any) => t.tool_name === demo.world.tool);
    const truth = {
      recall_probability: demo.world.recall,
      horizon: trueHorizon(demo.world),
      cache_hit_rate: demo.world.cacheHitRate,
    };
    for (const [field, value] of Object.entries(truth)) {
      const p = tool?.priors[field];
      figures.push(
        `  learned ${field}: ${p?.value.toFixed(4)} [${p?.range?.[0].toFixed(4)}, ${p?.range?.[1].toFixed(4)}] n=${p?.n}, true ${value}`,
      );
      checks.push({
        name: `the learned ${field}'s 90% range holds the true ${value}`,
        pass: p?.range != null && p.range[0] <= value && value <= p.range[1],
      });
    }
  } else if (demo.id !== "D4shared") {
    figures.push(
      `  breaker: ${learn.openedAfter === null ? "never opened" : `opened after ${learn.openedAfter} sessions`}; at the last refresh ${JSON.stringify(learn.lastBreaker)}`,
    );
    checks.push({ name: `the breaker opens for ${demo.world.tool}`, pass: learn.openedAfter !== null });
    if (learn.openedAfter !== null && learn.openedAt !== null) {
      const avoided =
        sum(runs.get("config")!.bills.slice(learn.openedAfter)) - sum(learn.bills.slice(learn.openedAfter));
      figures.push(
        `  loss avoided against learning off, over the ${options.sessions - learn.openedAfter} sessions after it opened: ${money(avoided)}`,
      );
      const query = new URLSearchParams({
        tool_name: demo.world.tool,
        from: new Date(learn.openedAt).toISOString(),
        to: new Date(Date.now() + 60_000).toISOString(),
      });
      const after = await ok(send, "GET", `/v1/savings?${query}`, undefined, learn.tenant);
      const since = toolRow(after, demo.world.tool);
      figures.push(
        `  treatment − holdout after it opened: ${since?.verdict ?? "no sessions"} over ${since?.treated ?? 0} + ${since?.held_out ?? 0} sessions`,
      );
      checks.push({
        name: "after it opened, the tool's treatment − holdout is no longer losing",
        pass: since?.verdict !== "losing",
      });
    }
    const before = await ok(
      send,
      "GET",
      `/v1/savings?tool_name=${demo.world.tool}`,
      undefined,
      runs.get("config")!.tenant,
    );
    figures.push(
      `  learning off, whole run: treatment − holdout ${toolRow(before, demo.world.tool)?.verdict ?? "no sessions"}, realized net ${money(before.net.realized_usd)} (predicted ${money(before.net.predicted_usd)})`,
    );
  }
  return { demo, sessions: options.sessions, runs, figures, checks };
}

/** The demonstration's figures and checks, one per line. */
export function describeAdaptive(result: AdaptiveResult): string[] {
  return [
    `Demonstration ${result.demo.id}: ${result.demo.title}`,
    `  ${result.demo.world.tool}, ${result.demo.world.mode} mode, holdout ${result.demo.world.holdoutFraction}; ${result.sessions} sessions under ${result.demo.policies.join(", ")}`,
    ...result.figures,
    ...result.checks.map((c) => `  ${c.pass ? "ok  " : "FAIL"} ${c.name}`),
  ];
}
