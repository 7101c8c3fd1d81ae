/**
 * @module scripts/replay/learned
 *
 * The tenant's learner over a corpus, for `gate_learned` (docs/replay.md §
 * gate_learned): priors per agent family calibrated on public sessions (the
 * shipped defaults, src/learning/family-defaults.json), and per file the
 * priors a tenant would hold before it: the defaults fit without the file's
 * own source repository (leave one source out), pooled with that tenant's
 * (the repository's) earlier sessions in time order, never the file itself
 * or a later one. The horizon is the survival estimate over session lengths
 * by kind (main or subagent) at each call index (src/gate/survival.ts); p
 * is the project's learner (src/learning chainPriors) run on charged recalls
 * and on any detection, the two ends of a range.
 *
 * @example
 * const priorsOf = learnedPriors(files, repoOf);
 * replayCorpus(dir, rows, { policies: ({ path }) => [gateLearned(priorsOf(path))] });
 */
import {
  addSums,
  DEFAULT_STUB_TOKENS,
  emptySums,
  expectedRemaining,
  HORIZON_LOW_LEVEL,
  type LevelSums,
  type Range,
  type SessionLength,
  remainingQuantile,
  type SizeBand,
  survivalOf,
} from "../../src/gate";
// The learner's pooling rule, through its own door: the learning folder's door also leads to the
// worker's ledger and storage, which a Node script does not type.
import { type ChainLevel, learnPriors } from "../../src/learning/pool";
import {
  chargedRecall,
  detectRecalls,
  fitSizes,
  GATE_LEARNED,
  gateLearned,
  hindsightSavings,
  keepEverything,
  type LearnedDecision,
  mergePriors,
  parseTranscript,
  priceBook,
  pricedCalls,
  type RecallEvidence,
  replayTrace,
  type SeedRow,
  type SessionPriors,
  simulate,
  type ToolPriors,
  traceTtl,
} from "../../src/replay";
import { DEFAULT_GATE_CONFIG } from "../../src/storage/rules";
import type { CorpusFile } from "./corpus";
import { readTranscript } from "./read";

/** Session kinds a request can tell apart. */
export type SessionKind = "main" | "subagent";

/** One agent family's calibration: where it came from, its sessions' lengths, its tools' evidence. */
export interface FamilyDefaults {
  files: number;
  repos: string[];
  /** Session lengths in calls, by kind, ascending. */
  sessions: Record<SessionKind, number[]>;
  /** Per tool: the learner's sums (p_r: charged recalls) and per band p's two ends. */
  tools: ToolPriors;
  evidence: RecallEvidence;
}

/** The shipped defaults document: per agent family. */
export interface DefaultsDocument {
  version: 1;
  source: string;
  families: Record<string, FamilyDefaults>;
}

/** A replayed file as the learner sees it. */
interface Seen {
  path: string;
  repo: string;
  family: string;
  kind: SessionKind;
  calls: number;
  order: number;
  evidence: RecallEvidence;
  tools: ToolPriors;
}

/** Files replayed, in time order (first call's time; files without one keep their place after those with one). */
function seenFiles(files: readonly CorpusFile[], repoOf: (path: string) => string): Seen[] {
  const rows = files.filter((f) => f.learned !== null && f.format !== null);
  const sorted = [...rows].sort((a, b) => {
    const x = a.learned!.first_at;
    const y = b.learned!.first_at;
    if (x !== null && y !== null && x !== y) return x - y;
    if (x === null && y !== null) return 1;
    if (x !== null && y === null) return -1;
    return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  });
  return sorted.map((f, order) => ({
    path: f.path,
    repo: repoOf(f.path),
    family: f.format!,
    kind: f.parent === null ? "main" : "subagent",
    calls: f.calls,
    order,
    evidence: f.learned!.recall_evidence,
    tools: f.learned!.priors,
  }));
}

function mergeEvidence(into: RecallEvidence, from: RecallEvidence): RecallEvidence {
  for (const [tool, bands] of Object.entries(from)) {
    const target = (into[tool] ??= {});
    for (const [band, e] of Object.entries(bands) as [SizeBand, { n: number; charged: number; detected: number }][]) {
      const t = (target[band] ??= { n: 0, charged: 0, detected: 0 });
      t.n += e.n;
      t.charged += e.charged;
      t.detected += e.detected;
    }
  }
  return into;
}

/**
 * The defaults per agent family from a set of replayed files.
 *
 * @example
 * familyDefaultsOf(files, repoOf, "the corpus").families["claude-code"].sessions.main.length
 */
export function familyDefaultsOf(
  files: readonly CorpusFile[],
  repoOf: (path: string) => string,
  source: string,
): DefaultsDocument {
  return { version: 1, source, families: defaultsOf(seenFiles(files, repoOf)) };
}

function defaultsOf(seen: readonly Seen[]): Record<string, FamilyDefaults> {
  const families: Record<string, FamilyDefaults> = {};
  for (const s of seen) {
    const f = (families[s.family] ??= {
      files: 0,
      repos: [],
      sessions: { main: [], subagent: [] },
      tools: {},
      evidence: {},
    });
    f.files++;
    if (!f.repos.includes(s.repo)) f.repos.push(s.repo);
    f.sessions[s.kind].push(s.calls);
    mergePriors(f.tools, s.tools);
    mergeEvidence(f.evidence, s.evidence);
  }
  for (const f of Object.values(families)) {
    f.sessions.main.sort((a, b) => a - b);
    f.sessions.subagent.sort((a, b) => a - b);
    f.repos.sort();
  }
  return families;
}

const ended = (calls: number): SessionLength => ({ calls, ended: true });

/**
 * The horizon's range by call index, [lower quartile, mean] of the remaining
 * calls: the survival estimate over the most specific sample that supports
 * one (this family and kind; this family; every family), else the config's
 * horizon as a point.
 */
function horizonOf(samples: readonly number[][]): (callIndex: number) => Range {
  const curves = samples.map((lengths) => survivalOf(lengths.map(ended)));
  return (callIndex) => {
    for (const curve of curves) {
      const h = expectedRemaining(curve, callIndex);
      if (h !== null) return [Math.min(h, remainingQuantile(curve, callIndex, HORIZON_LOW_LEVEL) ?? h), h];
    }
    const h = DEFAULT_GATE_CONFIG.expected_conversation_depth;
    return [h, h];
  };
}

/** A level of the chain, absent without observations. */
function level(sums: LevelSums | undefined, source: ChainLevel["source"], within?: LevelSums): ChainLevel | undefined {
  return sums === undefined ? undefined : { sums, source, ...(within === undefined ? {} : { within }) };
}

/** p's sums from evidence: the charged or the detected end. */
function pSums(
  e: { n: number; charged: number; detected: number } | undefined,
  end: "charged" | "detected",
): LevelSums | undefined {
  return e === undefined || e.n === 0 ? undefined : { ...emptySums(), p_n: e.n, p_r: e[end] };
}

function bandsTotal(bands: RecallEvidence[string] | undefined) {
  if (bands === undefined) return undefined;
  const t = { n: 0, charged: 0, detected: 0 };
  for (const e of Object.values(bands)) {
    t.n += e.n;
    t.charged += e.charged;
    t.detected += e.detected;
  }
  return t;
}

/**
 * The priors a tenant holds before one session: defaults (already left one
 * source out) and the tenant's earlier sessions.
 */
function priorsFrom(
  defaults: FamilyDefaults | undefined,
  all: Record<string, FamilyDefaults>,
  earlier: readonly Seen[],
  family: string,
  kind: SessionKind,
): SessionPriors {
  const own = earlier.filter((s) => s.family === family);
  const ownKind = own.filter((s) => s.kind === kind).map((s) => s.calls);
  const ownAll = own.map((s) => s.calls);
  const d = defaults?.sessions ?? { main: [], subagent: [] };
  const everyFamily = Object.values(all).flatMap((f) => [...f.sessions.main, ...f.sessions.subagent]);
  const horizon = horizonOf([
    [...d[kind], ...ownKind],
    [...d.main, ...d.subagent, ...ownAll],
    [...everyFamily, ...ownAll],
  ]);
  const tenantEvidence = own.reduce<RecallEvidence>((acc, s) => mergeEvidence(acc, s.evidence), {});
  const tenantTools = own.reduce<ToolPriors>((acc, s) => mergePriors(acc, s.tools), {});
  const root = {
    horizon: DEFAULT_GATE_CONFIG.expected_conversation_depth,
    recall_probability: DEFAULT_GATE_CONFIG.p_recall,
    cache_hit_rate: DEFAULT_GATE_CONFIG.cache_hit_rate,
  };
  const w = DEFAULT_GATE_CONFIG.learning_prior_weight;
  const pAt = (tool: string, band: SizeBand, end: "charged" | "detected") => {
    const replayBands = defaults?.evidence[tool];
    const ownBands = tenantEvidence[tool];
    // A named tool's p chain, as src/learning/chain.ts builds it: replay → replay band → tool → tool band.
    const replay = level(pSums(bandsTotal(replayBands), end), "replay");
    const mine = level(pSums(bandsTotal(ownBands), end), "learned");
    return learnPriors(
      root,
      [
        replay,
        level(pSums(replayBands?.[band], end), "replay", replay?.sums),
        mine,
        level(pSums(ownBands?.[band], end), "learned", mine?.sums),
      ],
      w,
    ).recall_probability.value;
  };
  // q: the learner's pooled cache-hit rate over the family's tools and the tenant's.
  const qSums = (tools: ToolPriors | undefined) =>
    Object.values(tools ?? {}).reduce(
      (acc, t) => addSums(acc, { ...emptySums(), q_n: t.sums.q_n, q_turns: t.sums.q_turns, q_cached: t.sums.q_cached }),
      emptySums(),
    );
  const q = learnPriors(root, [level(qSums(defaults?.tools), "replay"), level(qSums(tenantTools), "learned")], w)
    .cache_hit_rate.value;
  const memo = new Map<string, Range>();
  return {
    horizon,
    recall(tool, band) {
      const key = `${tool}\u0000${band}`;
      let range = memo.get(key);
      if (range === undefined) {
        const lo = pAt(tool, band, "charged");
        const hi = pAt(tool, band, "detected");
        range = [Math.min(lo, hi), Math.max(lo, hi)];
        memo.set(key, range);
      }
      return range;
    },
    cache_hit_rate: q,
    stub_tokens: DEFAULT_STUB_TOKENS,
  };
}

/**
 * Per file, the priors `gate_learned` decides it with: defaults fit without
 * the file's repository, and that repository's sessions before it.
 *
 * @example
 * learnedPriors(pass1, repoOf)(path).horizon(0)
 */
export function learnedPriors(
  files: readonly CorpusFile[],
  repoOf: (path: string) => string,
): (path: string) => SessionPriors {
  const seen = seenFiles(files, repoOf);
  const byPath = new Map(seen.map((s) => [s.path, s]));
  const looByRepo = new Map<string, Record<string, FamilyDefaults>>();
  return (path) => {
    const s = byPath.get(path);
    if (s === undefined) return priorsFrom(undefined, {}, [], "unknown", "main");
    let loo = looByRepo.get(s.repo);
    if (loo === undefined) looByRepo.set(s.repo, (loo = defaultsOf(seen.filter((x) => x.repo !== s.repo))));
    const earlier = seen.filter((x) => x.repo === s.repo && x.order < s.order);
    return priorsFrom(loo[s.family], loo, earlier, s.family, s.kind);
  };
}

/** Why `gate_learned` cost more on one file: the decision that lost most, and what the gate knew. */
export interface LostDecision {
  path: string;
  calls: number;
  kind: SessionKind;
  keep_usd: number;
  learned_usd: number;
  stubbed: number;
  /** The fired stub whose hindsight saving was lowest. */
  worst: LearnedDecision & { carried: number; recalled_at: number | null; hindsight_usd: number };
}

/**
 * The decisions behind each file where `gate_learned` costs more than keeping everything.
 *
 * @example
 * (await explainLosses(files, rows, priorsFor, UNNAMED_AS))[0]?.worst.horizon
 */
export async function explainLosses(
  files: readonly CorpusFile[],
  rows: Record<string, SeedRow>,
  priorsFor: (path: string) => SessionPriors,
  model: string,
): Promise<LostDecision[]> {
  const prices = priceBook(rows);
  const out: LostDecision[] = [];
  for (const f of files) {
    const learned = f.policies.find((p) => p.name === GATE_LEARNED);
    if (learned === undefined || learned.cost_usd <= f.keep_usd * (1 + 1e-9) + 1e-12) continue;
    const trace = parseTranscript((await readTranscript(f.path)).text, f.path, undefined, { model }).trace!;
    const decisions: LearnedDecision[] = [];
    replayTrace(trace, prices, [keepEverything(), gateLearned(priorsFor(f.path), (d) => decisions.push(d))]);
    const sizes = fitSizes(trace);
    const priced = pricedCalls(trace, prices);
    const keep = simulate(trace, sizes, prices, traceTtl(trace), keepEverything().start(), "cache_aware", { priced });
    const { byPart } = detectRecalls(trace);
    const hindsight = hindsightSavings(trace, sizes, keep, byPart);
    const fired = decisions
      .filter((d) => d.fire)
      .map((d) => ({
        ...d,
        carried: trace.calls.length - d.call,
        recalled_at: chargedRecall(byPart.get(d.part), d.call)?.call ?? null,
        hindsight_usd: hindsight.get(d.part) ?? 0,
      }))
      .sort((a, b) => a.hindsight_usd - b.hindsight_usd);
    if (fired.length === 0) continue;
    out.push({
      path: f.path,
      calls: f.calls,
      kind: f.parent === null ? "main" : "subagent",
      keep_usd: f.keep_usd,
      learned_usd: learned.cost_usd,
      stubbed: fired.length,
      worst: fired[0]!,
    });
  }
  return out;
}
