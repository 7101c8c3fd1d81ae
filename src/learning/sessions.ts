/**
 * The horizon that knows the session, for the gate's routes
 * (docs/design/economics.md §13): the calls still to come in a session of an
 * agent family and kind that has made `call_index` calls, from the session
 * lengths the shipped defaults were calibrated on
 * (./family-defaults.json, `npm run replay:bench`). The curves are built once
 * per isolate, on first use, and each index's low end once per curve: a
 * request only reads them.
 *
 * @module
 */
import {
  expectedRemaining,
  HORIZON_LOW_LEVEL,
  remainingQuantile,
  type SessionLength,
  type SurvivalCurve,
  survivalOf,
} from "../gate";
import defaults from "./family-defaults.json";

/** What a request may tell about the session its output enters (docs/api.md § POST /v1/gate). */
export interface SessionFacts {
  /** Model calls the session has made before this output. */
  call_index?: number;
  subagent?: boolean;
  /** An agent family id, as family-defaults.json names them. */
  agent?: string;
}

/** Which sample priced a session-aware horizon: the agent's family, or every family pooled. */
export type SessionSource = "family" | "pooled";

/** A session-aware horizon: its range, and the sample behind it. */
export interface SessionHorizon {
  /** The expected calls still to carry the output, this one included. */
  mean: number;
  /** The remaining calls' lower quartile (HORIZON_LOW_LEVEL): the range's low end. */
  low: number;
  source: SessionSource;
  /** The family whose sessions priced it; null when pooled. */
  family: string | null;
  /** The kind of session the sample holds; null: both kinds, the request did not say. */
  kind: "main" | "subagent" | null;
  /** Sessions in the sample. */
  n: number;
  /** The call index priced (0 when the request gave none). */
  callIndex: number;
  /** The agent the request named when no family has calibrated sessions for it. */
  unknownAgent: string | null;
}

/**
 * A family's sample of one kind is used from this many sessions; below, the
 * family's two kinds together, then every family pooled
 * (docs/design/economics.md §13.3).
 */
export const MIN_FAMILY_SESSIONS = 20;

interface Sample {
  curve: SurvivalCurve;
  /** remainingQuantile at each supported index, filled on first read. */
  low: Int32Array;
  n: number;
}

type Kind = "main" | "subagent";
const families = defaults.families as Record<
  string,
  { files: number; repos: string[]; sessions: Record<Kind, number[]>; evidence: Record<string, unknown> }
>;

/** One agent family's calibration as the learning view shows it: where it came from and how much. */
export interface FamilySummary {
  agent: string;
  files: number;
  repos: string[];
  /** Sessions by kind: the samples a session-aware horizon is read from. */
  sessions: { main: number; subagent: number };
  /** Tools whose recalls the family's p is measured on. */
  tools: number;
  source: string;
}

/**
 * The shipped calibration per agent family (./family-defaults.json), for the learning view: what a
 * new cache-aware tenant starts from, with each sample's source and size.
 *
 * @example
 * familySummaries()[0] // { agent: "claude-code", files: 90, repos: [...], sessions: { main: 68, subagent: 22 }, tools: 30, source: "npm run replay:bench on …" }
 */
export function familySummaries(): FamilySummary[] {
  return Object.entries(families).map(([agent, f]) => ({
    agent,
    files: f.files,
    repos: [...f.repos],
    sessions: { main: f.sessions.main.length, subagent: f.sessions.subagent.length },
    tools: Object.keys(f.evidence).length,
    source: defaults.source,
  }));
}
const samples = new Map<string, Sample | null>();

function sampleOf(key: string, lengths: () => number[]): Sample | null {
  let sample = samples.get(key);
  if (sample === undefined) {
    const calls = lengths();
    // Every calibrated session ended: the corpus holds finished transcripts.
    const curve = calls.length < MIN_FAMILY_SESSIONS ? null : survivalOf(calls.map(ended));
    sample =
      curve === null || curve.horizon.length === 0
        ? null
        : { curve, low: new Int32Array(curve.horizon.length), n: calls.length };
    samples.set(key, sample);
  }
  return sample;
}

const ended = (calls: number): SessionLength => ({ calls, ended: true });

function lengthsOf(family: string | null, kind: Kind | null): number[] {
  const chosen = family === null ? Object.values(families) : [families[family]!];
  return chosen.flatMap((f) => (kind === null ? [...f.sessions.main, ...f.sessions.subagent] : f.sessions[kind]));
}

/**
 * Whether family-defaults.json calibrated sessions for this agent id.
 *
 * @example
 * isKnownAgent("claude-code") // true
 * isKnownAgent("codex") // false: no calibrated sessions yet; the pooled default prices it
 */
export function isKnownAgent(agent: string): boolean {
  return Object.hasOwn(families, agent);
}

/**
 * The session-aware horizon for what a request told: the named family's
 * sessions of the kind it said (subagent or main), else that family's
 * sessions of both kinds, else every family's pooled, each only with enough
 * sessions (MIN_FAMILY_SESSIONS). Null when even the pooled sample has too
 * few, which the shipped defaults never do.
 *
 * @example
 * sessionHorizon({ agent: "claude-code", subagent: false, call_index: 12 })
 * // { mean: 143.68…, low: 9, source: "family", family: "claude-code", kind: "main", n: 68, ... }
 */
export function sessionHorizon(facts: Readonly<SessionFacts>): SessionHorizon | null {
  const kind: Kind | null = facts.subagent === undefined ? null : facts.subagent ? "subagent" : "main";
  const agent = facts.agent;
  const known = agent !== undefined && isKnownAgent(agent);
  const tiers: Array<[string | null, Kind | null]> = [];
  if (known) {
    if (kind !== null) tiers.push([agent, kind]);
    tiers.push([agent, null]);
  }
  if (kind !== null) tiers.push([null, kind]);
  tiers.push([null, null]);
  const callIndex = facts.call_index ?? 0;
  for (const [family, k] of tiers) {
    const sample = sampleOf(`${family ?? ""}\u0000${k ?? ""}`, () => lengthsOf(family, k));
    if (sample === null) continue;
    const mean = expectedRemaining(sample.curve, callIndex)!;
    return {
      mean,
      low: Math.min(mean, lowAt(sample, callIndex)),
      source: family === null ? "pooled" : "family",
      family,
      kind: k,
      n: sample.n,
      callIndex,
      unknownAgent: agent !== undefined && !known ? agent : null,
    };
  }
  return null;
}

function lowAt(sample: Sample, callIndex: number): number {
  const c = Math.min(Math.max(0, Math.floor(callIndex)), sample.low.length - 1);
  if (sample.low[c] === 0) sample.low[c] = remainingQuantile(sample.curve, c, HORIZON_LOW_LEVEL)!;
  return sample.low[c]!;
}
