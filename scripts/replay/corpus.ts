/**
 * @module scripts/replay/corpus
 *
 * Replays a folder of real transcripts file by file and keeps, per file,
 * what the corpus test and the benchmark read: the format, the model priced,
 * the bill check against the recorded usage and the file's own recorded
 * cost, and each policy's cost at both ends of the recall range. One file at
 * a time, so the folder's size never matters.
 *
 * @example
 * const files = await replayCorpus("test/replay/corpus", pricing);
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  defaultPolicies,
  parseTranscript,
  priceBook,
  replayTrace,
  type ParseIssue,
  type Policy,
  type RecallEvidence,
  type ToolPriors,
  type Trace,
  type SeedRow,
  type TraceFormat,
} from "../../src/replay";
import { transcripts } from "./cli";
import { readTranscript } from "./read";

/** One policy on one file. */
export interface CorpusPolicy {
  name: string;
  cost_usd: number;
  cost_pessimistic_usd: number;
  /** What the detected recalls' hops cost (in cost_usd). */
  recall_hops_usd: number;
  carry_saved_usd: number;
  cache_rewrites_usd: number;
  stubbed: number;
  recalls: number;
  found_by_rule: Record<string, number>;
}

/** One file replayed. */
export interface CorpusFile {
  path: string;
  format: TraceFormat | null;
  session: string | null;
  parent: string | null;
  model: string | null;
  /** Whether the model came from the `model` option: the transcript names none. */
  model_supplied: boolean;
  calls: number;
  recorded_calls: number;
  issues: ParseIssue[];
  skipped: string | null;
  /** Keep-everything over the calls with usage against that usage at the rows. */
  usage_check: { recorded_usd: number; modelled_usd: number } | null;
  /** Keep-everything over every call against the file's own recorded cost. */
  total_check: { recorded_usd: number; modelled_usd: number } | null;
  keep_usd: number;
  /** Calls whose history differed from the recorded input, aligned to it, and the difference's share in %. */
  aligned: { calls: number; pct: number };
  ideal_cache_usd: number | null;
  policies: CorpusPolicy[];
  /** What a learner takes from the file, policy aside: its first call's time, its evidence of recalls, its priors' sums. */
  learned: { first_at: number | null; recall_evidence: RecallEvidence; priors: ToolPriors } | null;
  ms: number;
}

/** The variable that names the folder the corpus is laid in. */
export const CORPUS_ENV = "OFFLOAD_GATE_REPLAY_CORPUS";
/** Where the corpus is laid for CI when the variable is unset: fetched data lives outside the repository. */
export const DEFAULT_CORPUS = resolve(import.meta.dirname, "../../../shared/replay-corpus");

/**
 * The folder holding the corpus: `OFFLOAD_GATE_REPLAY_CORPUS`, else
 * `../shared/replay-corpus` beside the repository; null when neither exists.
 * The transcripts are fetched public data and are never committed; the
 * repository holds their SOURCES.md and manifest.json (test/replay/corpus/).
 *
 * @example
 * corpusDir() // "/work/corpus" with OFFLOAD_GATE_REPLAY_CORPUS=/work/corpus
 */
export function corpusDir(env: Record<string, string | undefined> = process.env): string | null {
  const dir = env[CORPUS_ENV] ?? DEFAULT_CORPUS;
  return existsSync(dir) ? dir : null;
}

/** The corpus's own pricing rows (models the seed does not carry), added to the seed's. */
export const CORPUS_PRICING = resolve(import.meta.dirname, "../../test/replay/corpus/pricing.json");
const SEED = resolve(import.meta.dirname, "../../pricing.seed.json");

/**
 * The seed's rows plus the corpus's own.
 *
 * @example
 * corpusRows()["claude-sonnet-4"].input // 3
 */
export function corpusRows(): Record<string, SeedRow> {
  const rows = (path: string) => (JSON.parse(readFileSync(path, "utf8")) as { models: Record<string, SeedRow> }).models;
  return { ...rows(SEED), ...rows(CORPUS_PRICING) };
}

/**
 * Replays every transcript under `dir`.
 *
 * @example
 * (await replayCorpus("test/replay/corpus", corpusRows())).length // one row per file
 */
export async function replayCorpus(
  dir: string,
  rows: Record<string, SeedRow>,
  options: { policies?: (file: { path: string; trace: Trace }) => Policy[]; model?: string } = {},
): Promise<CorpusFile[]> {
  const policies = options.policies ?? (() => defaultPolicies());
  const prices = priceBook(rows);
  const issues: ParseIssue[] = [];
  const out: CorpusFile[] = [];
  for (const path of transcripts([dir], issues)) {
    if (!path.endsWith(".gz")) continue;
    const started = performance.now();
    const { text } = await readTranscript(path);
    const parsed = parseTranscript(text, path, undefined, { model: options.model });
    const row: CorpusFile = {
      path,
      format: parsed.trace?.format ?? null,
      session: parsed.trace?.session ?? null,
      parent: parsed.trace?.parent ?? null,
      model: null,
      model_supplied: parsed.trace?.model_supplied === true,
      calls: parsed.trace?.calls.length ?? 0,
      recorded_calls: parsed.trace?.calls.filter((c) => c.usage !== null).length ?? 0,
      issues: parsed.issues,
      skipped: parsed.trace === null ? "not parsed" : null,
      usage_check: null,
      total_check: null,
      keep_usd: 0,
      aligned: { calls: 0, pct: 0 },
      ideal_cache_usd: null,
      policies: [],
      learned: null,
      ms: 0,
    };
    if (parsed.trace !== null) {
      const r = replayTrace(parsed.trace, prices, policies({ path, trace: parsed.trace }));
      if ("skipped" in r) row.skipped = r.skipped;
      else {
        row.model = r.model;
        row.usage_check = r.check && { recorded_usd: r.check.recorded_usd, modelled_usd: r.check.modelled_usd };
        row.total_check = r.total_check && {
          recorded_usd: r.total_check.recorded_usd,
          modelled_usd: r.total_check.modelled_usd,
        };
        row.keep_usd = r.policies[0]!.cost_usd;
        row.aligned = { calls: r.aligned.calls, pct: r.aligned.pct };
        row.learned = {
          first_at: parsed.trace.calls.find((c) => c.at !== null)?.at ?? null,
          recall_evidence: r.recall_evidence,
          priors: r.priors,
        };
        row.ideal_cache_usd = r.ideal_cache_usd;
        row.policies = r.policies.map((p) => ({
          name: p.name,
          cost_usd: p.cost_usd,
          cost_pessimistic_usd: p.cost_pessimistic_usd,
          recall_hops_usd: p.decomposition.recall_hops_usd,
          carry_saved_usd: p.decomposition.carry_saved_usd,
          cache_rewrites_usd: p.decomposition.cache_rewrites_usd,
          stubbed: p.stubbed,
          recalls: p.recalls.detected,
          found_by_rule: p.recalls.found_by_rule as Record<string, number>,
        }));
      }
    }
    row.ms = performance.now() - started;
    out.push(row);
  }
  return out;
}
