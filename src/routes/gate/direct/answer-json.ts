/**
 * A gate answer's JSON from the parts it is made of, the same bytes as
 * `JSON.stringify`: a frozen part of primitives, such as `priced_as` (one
 * frozen object per row load, ../decide.ts), is serialised once and its text
 * reused by every answer that row prices; the answer's own keys are written
 * from fragments held per key; numbers, booleans and null are written
 * directly; the rest (the reason, the inputs, the priors) goes to
 * `JSON.stringify`. test/gate/answer-json.test.ts holds it to `JSON.stringify` on
 * the conformance vectors' answers, 10,000 generated requests' and
 * arbitrary values.
 *
 * @module
 */

// Frozen objects of primitives only: their text cannot change, so it is written once.
const fragments = new WeakMap<object, string>();
// `"key":` for every key seen; an answer has a few dozen.
const keys = new Map<string, string>();

const keyOf = (key: string): string => {
  let fragment = keys.get(key);
  if (fragment === undefined) {
    fragment = `${JSON.stringify(key)}:`;
    keys.set(key, fragment);
  }
  return fragment;
};

/** A frozen object whose values are all primitives: its JSON never changes. */
const isFixed = (value: object): boolean =>
  Object.isFrozen(value) &&
  !Array.isArray(value) &&
  !("toJSON" in value) &&
  Object.values(value).every((field) => field === null || typeof field !== "object");

function fragmentOf(value: object): string | undefined {
  const held = fragments.get(value);
  if (held !== undefined || !isFixed(value)) return held;
  const text = JSON.stringify(value);
  fragments.set(value, text);
  return text;
}

/**
 * One value's JSON, or undefined where JSON.stringify would leave it out (an
 * object's undefined or function). Objects `depth` levels down are written
 * key by key; deeper ones (the inputs, the priors) by JSON.stringify.
 */
function valueJson(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      return (
        fragmentOf(value) ??
        (depth > 0 && !Array.isArray(value) && !("toJSON" in value)
          ? objectJson(value as Record<string, unknown>, depth - 1)
          : JSON.stringify(value))
      );
    case "string":
    case "bigint":
      return JSON.stringify(value);
    default:
      return undefined;
  }
}

function objectJson(value: Record<string, unknown>, depth: number): string {
  let text = "";
  for (const key of Object.keys(value)) {
    const json = valueJson(value[key], depth);
    if (json !== undefined) text += (text === "" ? "{" : ",") + keyOf(key) + json;
  }
  return text === "" ? "{}" : `${text}}`;
}

/**
 * A gate answer (or a batch's `{ decisions }`) as JSON, byte for byte what
 * `JSON.stringify(answer)` writes.
 *
 * @example
 * answerJson({ fire: true, priced_as: Object.freeze({ model: "gpt-5", input: 1.25 }) })
 * // '{"fire":true,"priced_as":{"model":"gpt-5","input":1.25}}'
 */
export function answerJson(answer: object): string {
  if (Array.isArray(answer) || "toJSON" in answer) return JSON.stringify(answer);
  const { decisions } = answer as { decisions?: unknown };
  // A batch: each decision is an answer of its own.
  if (Array.isArray(decisions) && Object.keys(answer).length === 1) {
    let text = "";
    for (let i = 0; i < decisions.length; i++) text += (i === 0 ? "" : ",") + (valueJson(decisions[i], 1) ?? "null");
    return `{"decisions":[${text}]}`;
  }
  return objectJson(answer as Record<string, unknown>, 0);
}
