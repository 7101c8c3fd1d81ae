/**
 * A new cache-aware tenant's recall prior, from the agent family's
 * calibration (./family-defaults.json, docs/design/learning.md §8.1): p for
 * a tool's outputs of a size band as a range, charged recalls at the low end
 * and any detection at the high end, each pooled by the learner's one rule
 * (./pool) from the config's p through the tool's evidence to its band's, as
 * replay's `gate_learned` starts. Worked out once per (family, tool, band,
 * config p, weight) and held: a request does no pooling of its own.
 *
 * @module
 */
import { emptySums, type LevelSums, type SizeBand } from "../gate";
import defaults from "./family-defaults.json";
import { type ChainLevel, learnPriors } from "./pool";

/** One band's evidence: outputs, and how many had a charged or any detected recall. */
interface Evidence {
  n: number;
  charged: number;
  detected: number;
}

/** A family's recall prior for one tool and band: [charged, detected], and the outputs behind it. */
export interface FamilyRecall {
  range: [number, number];
  /** Outputs of this tool the family's calibration saw (every band). */
  n: number;
  family: string;
}

const evidence = Object.fromEntries(
  Object.entries(defaults.families).map(([family, f]) => [
    family,
    (f as { evidence: Record<string, Partial<Record<SizeBand, Evidence>>> }).evidence,
  ]),
);
const memo = new Map<string, FamilyRecall | null>();

/**
 * The family's p range for a tool's outputs of a band, or null when the
 * family is unknown or never saw the tool.
 *
 * @example
 * familyRecall("mini-swe-agent", "bash", "lt2k", 0.25, 10) // { range: [0.072…, 0.625…], n: 3408, family: "mini-swe-agent" }
 */
export function familyRecall(
  family: string,
  tool: string,
  band: SizeBand,
  rootP: number,
  weight: number,
): FamilyRecall | null {
  const key = `${family}\u0000${tool}\u0000${band}\u0000${rootP}\u0000${weight}`;
  let found = memo.get(key);
  if (found === undefined) {
    found = compute(family, tool, band, rootP, weight);
    // Bounded by the calibrated names: an unknown family or tool is not held.
    if (found !== null) memo.set(key, found);
  }
  return found;
}

function compute(family: string, tool: string, band: SizeBand, rootP: number, weight: number): FamilyRecall | null {
  const tools = Object.hasOwn(evidence, family) ? evidence[family]! : undefined;
  const bands = tools !== undefined && Object.hasOwn(tools, tool) ? tools[tool]! : undefined;
  if (bands === undefined) return null;
  const total: Evidence = { n: 0, charged: 0, detected: 0 };
  for (const e of Object.values(bands)) {
    total.n += e.n;
    total.charged += e.charged;
    total.detected += e.detected;
  }
  if (total.n === 0) return null;
  const root = { horizon: 0, recall_probability: rootP, cache_hit_rate: 0 };
  const at = (end: "charged" | "detected") => {
    const whole = level(total, end);
    return learnPriors(root, [whole, level(bands[band], end, whole?.sums)], weight).recall_probability.value;
  };
  const lo = at("charged");
  const hi = at("detected");
  return { range: [Math.min(lo, hi), Math.max(lo, hi)], n: total.n, family };
}

function level(e: Evidence | undefined, end: "charged" | "detected", within?: LevelSums): ChainLevel | undefined {
  if (e === undefined || e.n === 0) return undefined;
  const sums = { ...emptySums(), p_n: e.n, p_r: e[end] };
  return { sums, source: "replay", ...(within === undefined ? {} : { within }) };
}
