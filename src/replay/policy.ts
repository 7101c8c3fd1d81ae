/**
 * @module replay/policy
 *
 * What a policy is (a name, its parameters, a run started per trace) and
 * the shape most take: deciding each tool output once, as it enters the
 * history. Pure.
 */
import type { PolicyRun, StepState } from "./simulate";

/** A policy's parameters, as the report prints them. */
export type PolicyParams = Record<string, number | string | string[]>;

/** A named, parameterised policy. */
export interface Policy {
  name: string;
  params: PolicyParams;
  start(): PolicyRun;
}

/** Tokens of a placeholder that says an output was cleared. */
export const PLACEHOLDER_TOKENS = 10;

/**
 * A policy that decides each tool output once, when it first enters the
 * history: `stubOf` answers the stub's tokens, or null to keep it.
 *
 * @example
 * onEntry("size_only", {}, (s, id) => (s.sizes.tokens[id]! >= 10_000 ? 200 : null))
 */
export function onEntry(
  name: string,
  params: PolicyParams,
  stubOf: (s: StepState, id: number, position: number) => number | null,
): Policy {
  return {
    name,
    params,
    start() {
      const decided = new Set<number>();
      return {
        step(s) {
          let changed = Infinity;
          for (let j = s.outputs.length - 1; j >= 0 && s.outputs[j]! >= s.keep; j--) {
            const position = s.outputs[j]!;
            const id = s.ctx[position]!;
            if (decided.has(id)) continue;
            decided.add(id);
            const stub = stubOf(s, id, position);
            if (stub !== null) {
              s.stub.set(id, stub);
              changed = Math.min(changed, position);
            }
          }
          return changed;
        },
      };
    },
  };
}
