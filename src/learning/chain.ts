/**
 * Which levels a decision pools, field by field, each outcome counted once
 * (docs/design/learning.md §2.5). Pure.
 *
 * @module
 */

import type { SizeBand } from "../gate";
import type { LearnedValue } from "../storage";
import { own } from "../storage/rules";
import { type ChainLevel, emptySums, type LevelSums, learnPriors, type PooledPriors, type RootPriors } from "./pool";

/** The levels one decision reads from a published value, each present or not. */
export interface DecisionLevels {
  tenant: LevelSums | undefined;
  /** Named-tool decisions only. */
  tool: LevelSums | undefined;
  model: LevelSums | undefined;
  replay: LevelSums | undefined;
  replayBand: LevelSums | undefined;
  /** The tenant's own p in the decision's size band (p_n and p_r only; h and q pass through). */
  toolBand: LevelSums | undefined;
  named: boolean;
  /** The tool's reporting is flagged and not acknowledged: its own p observations are set aside. */
  unverified: boolean;
}

/**
 * The levels of a value for a (tool, model, band); names the value does not
 * hold are absent levels.
 *
 * @example
 * levelsOf(value, "read_file", "claude-opus-4-6", "ge10k").replay // the imported read_file sums, or undefined
 */
export function levelsOf(
  value: Readonly<LearnedValue> | null,
  tool: string | null,
  model: string | null,
  band: SizeBand | null,
): DecisionLevels {
  const entry = tool === null ? undefined : own(value?.tools, tool);
  const replayed = tool === null ? undefined : own(value?.replay, tool);
  return {
    tenant: value?.tenant_sums,
    tool: entry?.sums,
    model: model === null ? undefined : own(entry?.models, model),
    replay: replayed?.sums,
    replayBand: band === null ? undefined : replayed?.bands?.[band],
    toolBand: bandLevel(band === null ? undefined : entry?.bands?.[band]),
    named: tool !== null,
    unverified: tool !== null && own(value?.trust, tool)?.acknowledged === false,
  };
}

/**
 * The pooled priors of a decision's levels: p along its chain, h and q
 * along theirs.
 *
 * @example
 * chainPriors(root, levelsOf(value, "grep", "m", null), 10).recall_probability.source // "config": grep never fired
 */
export function chainPriors(root: RootPriors, levels: DecisionLevels, weight: number): PooledPriors {
  const replay: Array<ChainLevel | undefined> = [
    replayLevel(levels.replay),
    replayLevel(levels.replayBand, levels.replay),
  ];
  const model = ownLevel(levels.model, levels.tool);
  const shared = learnPriors(
    root,
    [...replay, ownLevel(levels.tenant), ownLevel(levels.tool, levels.tenant), model],
    weight,
  );
  if (!levels.named) return shared;
  if (levels.unverified) {
    const parent = learnPriors(root, replay, weight).recall_probability;
    return { ...shared, recall_probability: { ...parent, source: "unverified" } };
  }
  const recall = learnPriors(
    root,
    [...replay, ownLevel(levels.tool), model, ownLevel(levels.toolBand, levels.tool)],
    weight,
  ).recall_probability;
  return { ...shared, recall_probability: recall };
}

/** A band's p sums as a level: nothing observed for h and q, so they pass through it. */
function bandLevel(sums: { p_n: number; p_r: number } | undefined): LevelSums | undefined {
  return sums === undefined || sums.p_n === 0 ? undefined : { ...emptySums(), p_n: sums.p_n, p_r: sums.p_r };
}

// A level and the one above it whose observations include all of its own (absent: none in the chain),
// so a level holding exactly that one's outcomes adds nothing (docs/design/learning.md §2.4).
function replayLevel(sums: LevelSums | undefined, within?: LevelSums): ChainLevel | undefined {
  return sums === undefined ? undefined : { sums, source: "replay", ...(within === undefined ? {} : { within }) };
}

function ownLevel(sums: LevelSums | undefined, within?: LevelSums): ChainLevel | undefined {
  return sums === undefined ? undefined : { sums, source: "learned", ...(within === undefined ? {} : { within }) };
}
