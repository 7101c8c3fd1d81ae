/**
 * Which levels a decision pools, field by field (docs/learning.md § Levels):
 *
 *   p:     config → replay tool → replay tool × band → tool → tool × model → tool × band
 *   h, q:  config → replay tool → replay tool × band → tenant → tool → tool × model
 *
 * Each outcome counts once: a level whose observations of a field are exactly
 * those of the level above it that holds them (tool × model and tool × band
 * within the tool, the tool within the tenant, a replay band within its
 * tool) adds nothing for that field (docs/design/learning.md §2.4); a strict
 * subset pools on its parent as every level does.
 *
 * The tenant's own tool × band level (p only: recall grows with size)
 * comes last, after tool × model: a model's sums hold every band,
 * so a band level before them would be pooled back towards the tool's mix
 * of sizes by them; last, a band's own recalls decide with the model's value
 * as their prior, and a band with none passes that value through.
 *
 * p skips the tenant level for a named tool: the tenant's p is other tools'
 * recalls, and a tool that inherits it may never fire, so never learn its
 * own (issue 34 item 1, the stall). Every decision observes h and q, so they
 * keep pooling through the tenant. A decision without a tool pools the
 * tenant level for every field. A tool whose reporting is flagged and not
 * acknowledged (issue 34 item 6, ./trust.ts) pools p from the config and its
 * replay levels only, its source `unverified`: what it reports cannot be
 * taken at its word. Pure.
 *
 * @module
 */
import type { LearnedValue } from "../storage";
import { own } from "../storage/rules";
import type { SizeBand } from "../gate";
import { emptySums, learnPriors, type ChainLevel, type LevelSums, type PooledPriors, type RootPriors } from "./pool";

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
