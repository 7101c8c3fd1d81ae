/**
 * The adaptive gate's demonstrations (docs/design/learning.md §6): the audit's worlds,
 * each with a gap between the config's priors and the oracle's, so a share of
 * that gap closed by learning measures something. D4a high recall (the config
 * fires and loses), D4b a long horizon (the config never fires), D4shared both
 * tools in one tenant, D4explore world a with exploration (p keeps being
 * measured), D5 the +94.8% world's breaker, D6 a loss the model cannot see.
 * Data only: adaptive.ts plays them.
 *
 * @module
 */
import { WORLDS, type World } from "./world";

export type Policy = "never" | "config" | "learning" | "oracle";

export type AdaptiveId =
  | "D4a"
  | "D4b"
  | "D4shared"
  | "D4explore"
  | "D4c"
  | "D4c_nocache"
  | "D4c_seed"
  | "D4c_seed_nocache"
  | "D5"
  | "D6";

export interface AdaptiveDemo {
  id: AdaptiveId;
  title: string;
  world: World;
  policies: Policy[];
  /** config:gate fields the demonstration sets besides the world's mode, holdout and threshold. */
  config?: Record<string, unknown>;
  /**
   * Judged by the share of the oracle's second-half savings learning keeps (no gap: the config's
   * priors already decide right), not by the share of a gap it closes.
   */
  keep?: boolean;
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
 * The audit's world a: a high-recall tool (grep, 6k outputs, recalled 80% of the time, 26 turns).
 * The config's p of 0.25 fires on every output and loses; the oracle, told p 0.8, fires on none.
 */
export const HIGH_RECALL_WORLD: World = {
  id: 8,
  title: "high recall: grep recalled 80% against the prior 0.25, so the config fires on it and loses",
  tool: "sim8.grep",
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

/**
 * The audit's world b: a long-horizon tool (read_file, 3k outputs, recalled 10%, 26 turns, so a
 * mean horizon of 13). The config's horizon of 4 never pays for a stub; the oracle fires on every output.
 */
export const LONG_HORIZON_WORLD: World = {
  id: 9,
  title: "long horizon: read_file carried 13 turns against the prior 4 and recalled 10%, so the config never fires",
  tool: "sim9.read_file",
  model: "claude-opus-4-6",
  mode: "cache_aware",
  turns: 26,
  outputChance: 0.5,
  outputTokens: [2_800, 3_200],
  contextTokens: [130_000, 170_000],
  recall: 0.1,
  cacheHitRate: 0.9,
  holdoutFraction: 0,
  threshold: 0,
};

/**
 * The shared tenant of docs/design/learning.md §2.5 (the stall): worlds a and b in the same sessions (grep on odd turns,
 * read_file on even ones). Before p stopped pooling across tools, read_file inherited grep's p and never fired.
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

/**
 * World c, near break-even: web_fetch's 6k outputs (about two a session) over 65k–75k of history, recalled 45% where the
 * cache-aware break-even p is about 0.55 (the config's h 4 and q 0.9 are the truth). The config's p
 * of 0.25 and the oracle both stub every output and save; learning must keep what they save, though
 * its p may wander to either side of 0.55 on the way. Within 20% of break-even in p (0.45 against
 * 0.55), in h (4 against about 3.4 at p 0.45) and in q (0.9 against about 0.93 at p 0.45).
 */
export const NEAR_BREAK_EVEN_WORLD: World = {
  id: 10,
  title:
    "near break-even: web_fetch recalled 45% where the break-even p is about 0.55, so the config and the oracle both stub and save",
  tool: "sim10.web_fetch",
  model: "claude-opus-4-6",
  mode: "cache_aware",
  turns: 8,
  // About two outputs a session: few observations per refresh, so p wanders, yet enough that the
  // oracle's saving (about $0.02 an output against a recall hop's spread of ±$0.1) shows over the
  // second half. At one a session (the audit's) the oracle's own second-half saving was within its noise.
  outputChance: 0.3,
  outputTokens: [5_500, 6_500],
  contextTokens: [65_000, 75_000],
  recall: 0.45,
  cacheHitRate: 0.9,
  holdoutFraction: 0,
  threshold: 0,
};

/** World c whose outcomes leave cached_turns out: q is never learned, and the breaker prices at the q decided with. */
export const NEAR_BREAK_EVEN_NO_CACHE_WORLD: World = {
  ...NEAR_BREAK_EVEN_WORLD,
  id: 11,
  title: `${NEAR_BREAK_EVEN_WORLD.title}; outcomes without cached_turns`,
  tool: "sim11.web_fetch",
  reportsCache: false,
};

/**
 * World c as the audit played it, in seed mode: one 24k–26k web fetch about every session, whose
 * agent states a recall hop of 1k tokens in and 35k out (a long reply), so the seed's break-even p at
 * h 4 is about 0.56; true p 0.45, mean horizon 4 (a learned 3.9 truncated to 3 stops it firing). The
 * provider caches nothing (q 0: the seed's own world), so the bill saves about $0.2 an output by
 * stubbing, clear of a recall's spread. The realized-net breaker once judged these seed decisions
 * cache-aware at the config's q of 0.9 when outcomes carried no cached_turns, and opened.
 */
export const NEAR_BREAK_EVEN_SEED_WORLD: World = {
  id: 12,
  title: "near break-even in seed mode: web_fetch recalled 45% where the seed's break-even p is about 0.56",
  tool: "sim12.web_fetch",
  model: "claude-opus-4-6",
  mode: "seed",
  turns: 8,
  outputChance: 0.15,
  outputTokens: [24_000, 26_000],
  contextTokens: [5_000, 10_000],
  recall: 0.45,
  cacheHitRate: 0,
  holdoutFraction: 0,
  recallTokens: [1_000, 35_000],
};

/** The seed-mode world c whose outcomes leave cached_turns out. */
export const NEAR_BREAK_EVEN_SEED_NO_CACHE_WORLD: World = {
  ...NEAR_BREAK_EVEN_SEED_WORLD,
  id: 13,
  title: `${NEAR_BREAK_EVEN_SEED_WORLD.title}; outcomes without cached_turns`,
  tool: "sim13.web_fetch",
  reportsCache: false,
};

/**
 * Exploration's share in D4explore: ten times the default, so its cost shows within a short run. An
 * exploring decision prices p at its lower credible bound, so it fires only while that bound is below
 * the point where grep stops paying (about 0.52 here): what it buys is that p cannot freeze above the truth.
 */
export const D4EXPLORE_FRACTION = 0.2;

const world = (id: number) => WORLDS.find((w) => w.id === id)!;
const ALL: Policy[] = ["never", "config", "learning", "oracle"];

export const ADAPTIVE_DEMOS: readonly AdaptiveDemo[] = [
  {
    id: "D4a",
    title: `${HIGH_RECALL_WORLD.title}; no exploration, so p stops being measured once the gate stops firing`,
    world: HIGH_RECALL_WORLD,
    policies: ALL,
    config: { learning_explore_fraction: 0 },
  },
  { id: "D4b", title: LONG_HORIZON_WORLD.title, world: LONG_HORIZON_WORLD, policies: ALL },
  { id: "D4shared", title: SHARED_WORLD.title, world: SHARED_WORLD, policies: ALL },
  {
    id: "D4explore",
    title: `world a with exploration (learning_explore_fraction ${D4EXPLORE_FRACTION}): p keeps being measured, at a small cost`,
    world: HIGH_RECALL_WORLD,
    policies: ALL,
    config: { learning_explore_fraction: D4EXPLORE_FRACTION },
  },
  { id: "D4c", title: NEAR_BREAK_EVEN_WORLD.title, world: NEAR_BREAK_EVEN_WORLD, policies: ALL, keep: true },
  {
    id: "D4c_nocache",
    title: NEAR_BREAK_EVEN_NO_CACHE_WORLD.title,
    world: NEAR_BREAK_EVEN_NO_CACHE_WORLD,
    policies: ALL,
    keep: true,
  },
  {
    id: "D4c_seed",
    title: NEAR_BREAK_EVEN_SEED_WORLD.title,
    world: NEAR_BREAK_EVEN_SEED_WORLD,
    policies: ALL,
    keep: true,
  },
  {
    id: "D4c_seed_nocache",
    title: NEAR_BREAK_EVEN_SEED_NO_CACHE_WORLD.title,
    world: NEAR_BREAK_EVEN_SEED_NO_CACHE_WORLD,
    policies: ALL,
    keep: true,
  },
  {
    id: "D5",
    title: "the +94.8% world (ledger demonstration L2's, seed mode): the breaker opens for the losing tool",
    world: world(2),
    policies: ["never", "config", "learning"],
  },
  { id: "D6", title: REFETCH_WORLD.title, world: REFETCH_WORLD, policies: ["never", "config", "learning"] },
];

/** The tenant (gate key name) a demonstration's policy plays as: each learns from its own ledger only. */
export const tenantOf = (demo: AdaptiveDemo, policy: Policy) => `${demo.id.toLowerCase()}-${policy}`;

/** Every tenant the adaptive demonstrations play as, for the worker's GATE_API_KEYS. */
export const ADAPTIVE_TENANTS = ADAPTIVE_DEMOS.flatMap((demo) =>
  demo.policies.filter((p) => p !== "never").map((p) => tenantOf(demo, p)),
);
