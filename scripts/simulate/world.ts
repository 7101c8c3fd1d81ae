/**
 * The simulator's worlds and agents, with no I/O of their own: every call to
 * the worker goes through the transport the caller passes (HTTP to a local
 * worker in `npm run simulate`, the worker's fetch handler in the test), and
 * every random draw comes from a seeded generator, so a run is reproducible.
 */
import { seeded } from "../../build/seeded.mjs";

/** One HTTP exchange with the worker, as `tenant` (a gate key's name; `default` when left out). */
export type Transport = (
  method: "GET" | "POST" | "PUT",
  path: string,
  body?: unknown,
  tenant?: string,
) => Promise<{ status: number; body: any }>;

/** A world the agents live in: what is true, and what they send. */
export interface World {
  id: 1 | 2 | 3 | 4 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13;
  title: string;
  tool: string;
  /**
   * A second tool in the same sessions (demonstration 4): it returns the
   * outputs of even turns, with its own true recall probability.
   */
  second?: { tool: string; recall: number; outputTokens: [number, number] };
  model: string;
  /** The mode the gate decides in (config:gate's pricing_mode). */
  mode: "seed" | "cache_aware";
  /** Every session runs this many turns (its true length). */
  turns: number;
  /** The chance that a turn before the last returns a large tool output. */
  outputChance: number;
  outputTokens: [number, number];
  /** History before each output (P), per session. */
  contextTokens: [number, number];
  /** True recall probability of a stub, true cache hit rate of a turn. */
  recall: number;
  cacheHitRate: number;
  holdoutFraction: number;
  /** The chance that a stubbed output needed again (`recall`) is re-fetched by re-running the tool (D6), not recalled. */
  refetch?: number;
  /** config:gate's large_offload_threshold_tokens for this world (the default's 10,000 otherwise). */
  threshold?: number;
  /** false: outcomes leave cached_turns out (the agent does not know its cache state). */
  reportsCache?: boolean;
  /** The recall hop's tokens the agent states on each request (recall_input_tokens, recall_output_tokens); absent: the gate's defaults. */
  recallTokens?: [number, number];
}

/** Tokens a turn adds besides tool outputs, and the model's reply per turn. */
const TURN_INPUT = 300;
const TURN_OUTPUT = 400;

/** The note's three demonstrations, and the mixed world of docs/design/ledger.md §2. */
export const WORLDS: readonly World[] = [
  {
    id: 1,
    title: "cache-aware gate, true parameters equal to its priors (p 0.25, q 0.9, mean horizon 4)",
    tool: "sim1.grep",
    model: "claude-opus-4-6",
    mode: "cache_aware",
    turns: 8,
    outputChance: 0.8,
    outputTokens: [10_000, 40_000],
    contextTokens: [20_000, 80_000],
    recall: 0.25,
    cacheHitRate: 0.9,
    holdoutFraction: 0.5,
  },
  {
    id: 2,
    title:
      "seed gate in a cached world (q 0.9, 120k-180k of history), a tool recalled 80% of the time against the prior 0.25",
    tool: "sim2.read_file",
    model: "claude-opus-4-6",
    mode: "seed",
    turns: 8,
    outputChance: 1,
    outputTokens: [11_000, 13_000],
    contextTokens: [120_000, 180_000],
    recall: 0.8,
    cacheHitRate: 0.9,
    holdoutFraction: 0.5,
  },
  {
    id: 3,
    title:
      "priors that are wrong (true p 0.4, q 0.75, mean horizon 6.5 against 0.25, 0.9, 4): the ledger recovers the truth",
    tool: "sim3.web_fetch",
    model: "claude-opus-4-6",
    mode: "cache_aware",
    turns: 13,
    outputChance: 0.5,
    outputTokens: [15_000, 30_000],
    contextTokens: [10_000, 60_000],
    recall: 0.4,
    cacheHitRate: 0.75,
    holdoutFraction: 0.5,
  },
  {
    id: 4,
    title:
      "seed gate, two tools in the same sessions (docs/design/ledger.md §2): read_file (12k outputs, 480k of history, recalled 90% of the time) loses, grep (25k, never recalled) saves",
    tool: "sim4.read_file",
    second: { tool: "sim4.grep", recall: 0, outputTokens: [24_000, 26_000] },
    model: "claude-opus-4-6",
    mode: "seed",
    turns: 8,
    outputChance: 1,
    outputTokens: [11_000, 13_000],
    contextTokens: [480_000, 490_000],
    recall: 0.9,
    cacheHitRate: 1,
    holdoutFraction: 0.5,
  },
];

/** The true mean horizon: outputs fall evenly on turns 1 … L − 1, and turns_after = L − t. */
export const trueHorizon = (world: World) => world.turns / 2;

const between = (rng: () => number, [lo, hi]: [number, number]) => lo + Math.floor(rng() * (hi - lo + 1));

/** One large tool output in a session, and the dice already rolled for it. */
interface Output {
  turn: number;
  /** The tool that returned it. */
  tool: string;
  tokens: number;
  recalledIfStubbed: boolean;
  recallHopHit: boolean;
  refetchedIfStubbed: boolean;
}

/** A session before the gate has spoken: everything random is drawn up front, so both arms see the same dice. */
export interface Session {
  id: string;
  context: number;
  /** hits[t]: whether turn t read the history's prefix from the cache (turn 1 writes it). */
  hits: boolean[];
  outputs: Output[];
}

/**
 * Session `index` of a world, from its own seeded generator.
 *
 * @example
 * drawSession(WORLDS[1], 7, 42).outputs.length // 7: world 2 gives an output on every turn but the last
 */
export function drawSession(world: World, index: number, seed: number): Session {
  const rng = seeded((seed * 1_000_003 + world.id * 7_919 + index) >>> 0);
  const context = between(rng, world.contextTokens);
  const hits = [false, false];
  for (let t = 2; t <= world.turns; t++) hits.push(rng() < world.cacheHitRate);
  const outputs: Output[] = [];
  for (let turn = 1; turn < world.turns; turn++) {
    if (rng() >= world.outputChance) continue;
    const second = world.second !== undefined && turn % 2 === 0 ? world.second : null;
    const recall = second?.recall ?? world.recall;
    const out = {
      turn,
      tool: second?.tool ?? world.tool,
      tokens: between(rng, second?.outputTokens ?? world.outputTokens),
      recalledIfStubbed: rng() < recall,
      recallHopHit: rng() < world.cacheHitRate,
    };
    // Drawn only in a world that re-fetches, so the other worlds' dice are as they were.
    outputs.push({ ...out, refetchedIfStubbed: world.refetch !== undefined && rng() < world.refetch });
  }
  return { id: `sim${world.id}-s${seed}-${index}`, context, hits, outputs };
}

/**
 * The session's covariate for the breaker's CUPED adjustment (POST /v1/sessions `covariate`): the
 * history it held before any output (its context) times the turns after the first that missed the
 * cache. Both are drawn before the gate speaks, so no decision changes it.
 *
 * @example
 * missedTokens({ id: "s", context: 1_000, hits: [false, false, true, false], outputs: [] }) // 1,000: turn 3 missed
 */
export function missedTokens(session: Session): number {
  return session.context * session.hits.slice(2).filter((hit) => !hit).length;
}

/** What the gate answered for one output, as far as the agent uses it. */
export interface Verdict {
  decision_id: string;
  fire: boolean;
  stub_tokens: number;
  recall_input_tokens: number;
  recall_output_tokens: number;
}

/** USD per million tokens, as a pricing row gives them. */
export interface Prices {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
}

/**
 * The session's provider bill as usage, following the gate's verdicts: the
 * history is written on turn 1 and read (or, on a miss, written again) on
 * every later turn; an output kept is written on the turn after it arrives
 * and carried the same way to the end; a stub instead is carried the same
 * way, and a recall costs an extra hop that writes the recalled slice,
 * bills the reply at the output rate and re-reads the history.
 */
export function bill(world: World, session: Session, verdicts: readonly Verdict[]) {
  let read = 0;
  let written = 0;
  let output = 0;
  const carry = (tokens: number, fromTurn: number) => {
    written += tokens;
    for (let u = fromTurn + 1; u <= world.turns; u++) {
      if (session.hits[u]) read += tokens;
      else written += tokens;
    }
  };
  for (let t = 1; t <= world.turns; t++) {
    if (session.hits[t]) read += session.context;
    else written += session.context;
    written += TURN_INPUT;
    output += TURN_OUTPUT;
  }
  const outcomes = session.outputs.map((out, i) => {
    const verdict = verdicts[i];
    if (verdict === undefined) throw new Error("a verdict per output");
    // A stub needed again is recalled, or (D6) re-fetched by re-running the tool: the same hop, but the
    // full output enters the history again as new tokens, and the outcome says nothing was recalled.
    const needed = verdict.fire && out.recalledIfStubbed;
    const refetched = needed && out.refetchedIfStubbed;
    const recalled = needed && !refetched;
    carry(verdict.fire ? verdict.stub_tokens : out.tokens, out.turn + 1);
    if (refetched) carry(out.tokens, out.turn + 1);
    if (needed) {
      written += verdict.recall_input_tokens;
      output += verdict.recall_output_tokens;
      if (out.recallHopHit) read += session.context;
      else written += session.context;
    }
    let cached = 0;
    for (let u = out.turn + 1; u <= world.turns; u++) if (session.hits[u]) cached++;
    return {
      decision_id: verdict.decision_id,
      turns_after: world.turns - out.turn,
      recalled,
      ...(world.reportsCache === false ? {} : { cached_turns: cached }),
      // The seed refuses context_tokens on the request; the outcome carries it instead.
      ...(world.mode === "seed" ? { context_tokens: session.context } : {}),
    };
  });
  const usage = {
    input_tokens: 0,
    output_tokens: output,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: written,
  };
  return { usage, outcomes };
}

/** The bill of `usage` in USD at `prices` (the simulator's own arithmetic, to print beside the ledger's). */
export function usd(prices: Prices, usage: ReturnType<typeof bill>["usage"]): number {
  const read = prices.cache_read ?? prices.input;
  const write = prices.cache_write ?? prices.input;
  return (
    (usage.output_tokens * prices.output +
      usage.cache_read_input_tokens * read +
      usage.cache_creation_input_tokens * write) /
    1e6
  );
}
