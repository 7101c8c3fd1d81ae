/**
 * The stored values the first gate answer reads (a pricing row, the gate
 * config, a learned value), checked without building a zod schema: the
 * validators compiled from the zod schemas at build time
 * (./validators.generated.js, `npm run validators`), then in plain code what
 * JSON Schema cannot say as zod says it: the refinements (shared with the
 * schemas: ./row-values.ts, ./config-values.ts, ./learning-sums.ts), a URL as
 * `z.url` parses it (one it would trim is left to zod), the reserved names; a
 * string longer in UTF-16 units than its maximum is left to zod too.
 *
 * Each check is one-sided: a value it accepts is one zod accepts, and the
 * value handed back is zod's copy (its keys in the shape's order, which a
 * priced row's answer copies; name records with no prototype). Anything else
 * answers undefined and the caller asks zod, which then words the problem as
 * it always did. test/storage/checked.test.ts holds the two to that.
 *
 * @module
 */

import {
  aliasIssues,
  changeIssues,
  configIssues,
  dict,
  HTTP_PROTOCOLS,
  RESERVED_MODEL_NAMES,
  rowIssues,
  SOURCE_URL_MAX,
  SOURCE_URL_PROTOCOLS,
  sumsInconsistency,
} from "./rules";
import type { GateConfigInput, LearnedValue, PricingRow } from "./schemas";
import { gateConfig, KEY_ORDER, learnedValue, pricingRow } from "./validators.generated.js";

type Json = Record<string, unknown>;

/**
 * A pricing row the compiled checks accept, as zod's copy, or undefined: ask zod.
 *
 * @example
 * checkedRow({ output: 25, input: 5 }) // { input: 5, output: 25 }
 * checkedRow({ input: -1, output: 25 }) // undefined
 */
export function checkedRow(json: unknown): PricingRow | undefined {
  if (!pricingRow(json)) return undefined;
  const row = json as PricingRow;
  const sources = [row.source, row.lifecycle_source, ...(row.scheduled ?? []).map((change) => change.source)];
  if (!sources.every((url) => url === undefined || plainUrl(url, SOURCE_URL_PROTOCOLS, SOURCE_URL_MAX)))
    return undefined;
  if (!withinUnits(row.provider, 64) || !withinUnits(row.source_note, 500)) return undefined;
  const names = [...(row.aliases ?? []), ...(row.replaced_by === undefined ? [] : [row.replaced_by])];
  if (names.some((name) => RESERVED_MODEL_NAMES.includes(name))) return undefined;
  if (aliasIssues(row.aliases ?? []).length > 0 || rowIssues(row).length > 0) return undefined;
  if ((row.scheduled ?? []).some((change) => changeIssues(change).length > 0)) return undefined;
  return ordered(row, KEY_ORDER.pricingRow, (key, value) => {
    if (key === "long_context") return ordered(value as Json, KEY_ORDER.longContext);
    if (key === "aliases") return [...(value as string[])];
    if (key !== "scheduled") return value;
    return (value as Json[]).map((change) =>
      ordered(change, KEY_ORDER.scheduledChange, (field, price) =>
        field === "long_context" ? ordered(price as Json, KEY_ORDER.longContext) : price,
      ),
    );
  }) as PricingRow;
}

/**
 * The fields of a stored gate config the compiled checks accept, or undefined: ask zod.
 *
 * @example
 * checkedConfig({ p_recall: 0.4 }) // { p_recall: 0.4 }
 * checkedConfig({ p_recall: 4 })   // undefined
 */
export function checkedConfig(json: unknown): GateConfigInput | undefined {
  if (!gateConfig(json)) return undefined;
  const config = json as GateConfigInput;
  const url = config.price_source_url;
  if (url !== undefined && url !== null && !plainUrl(url, HTTP_PROTOCOLS, 2048)) return undefined;
  if (!(config.price_source_providers ?? []).every((provider) => withinUnits(provider, 64))) return undefined;
  if (configIssues(config).length > 0) return undefined;
  // The config is spread over the defaults, whose key order the result keeps.
  const copy: Json = { ...config };
  if (Array.isArray(config.price_source_providers)) copy.price_source_providers = [...config.price_source_providers];
  return copy as GateConfigInput;
}

/**
 * A stored learned value the compiled checks accept, as zod's copy, or undefined: ask zod.
 *
 * @example
 * checkedLearned(JSON.parse(stored)) // the value, its name records with no prototype
 */
export function checkedLearned(json: unknown): LearnedValue | undefined {
  if (!learnedValue(json)) return undefined;
  const value = json as Json;
  let consistent = true;
  const sums = (level: unknown) => {
    if (sumsInconsistency(level as Parameters<typeof sumsInconsistency>[0]) !== null) consistent = false;
    return ordered(level as Json, KEY_ORDER.levelSums);
  };
  const record = (raw: unknown, entry: (value: Json) => unknown) =>
    dict(Object.entries(raw as Json).map(([name, item]) => [name, entry(item as Json)] as const));
  const copy = ordered(value, KEY_ORDER.learnedValue, (key, field) => {
    switch (key) {
      case "window":
        return ordered(field as Json, KEY_ORDER.window);
      case "tenant_sums":
        return sums(field);
      case "tools":
        return record(field, (tool) =>
          ordered(tool, KEY_ORDER.tool, (part, inner) => {
            if (part === "sums") return sums(inner);
            if (part === "models") return record(inner, sums);
            return ordered(inner as Json, KEY_ORDER.toolBands, (_band, level) => {
              const p = level as { p_n: number; p_r: number };
              if (p.p_r > p.p_n) consistent = false;
              return ordered(level as Json, KEY_ORDER.bandP);
            });
          }),
        );
      case "breakers":
        return record(field, (breaker) =>
          ordered(breaker, KEY_ORDER.breaker, (part, inner) =>
            part === "evidence" && inner !== null
              ? ordered(inner as Json, KEY_ORDER.evidence, (name, item) =>
                  name === "interval" && item !== null ? [...(item as number[])] : item,
                )
              : inner,
          ),
        );
      case "replay":
        return record(field, (tool) =>
          ordered(tool, KEY_ORDER.replayTool, (part, inner) =>
            part === "sums" ? sums(inner) : ordered(inner as Json, KEY_ORDER.bands, (_band, level) => sums(level)),
          ),
        );
      case "trust":
        return record(field, (tool) =>
          ordered(tool, KEY_ORDER.trust, (part, inner) =>
            part === "flags" ? (inner as Json[]).map((flag) => ordered(flag, KEY_ORDER.trustFlag)) : inner,
          ),
        );
      default:
        return field;
    }
  });
  return consistent ? (copy as LearnedValue) : undefined;
}

/** A stored text's JSON, or undefined (which every compiled check refuses) when it is not JSON. */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Loads a module on first use, once per isolate; a failed load is retried by the next call.
 *
 * @example
 * const config = lazily(() => import("./schemas/config")); (await config()).parseGateConfig(text)
 */
export function lazily<T>(load: () => Promise<T>): () => Promise<T> {
  let held: Promise<T> | undefined;
  return () => {
    held ??= load().catch((error: unknown) => {
      held = undefined;
      throw error;
    });
    return held;
  };
}

// zod's copy of an object: the keys it has, in the shape's order, each value through `field`.
function ordered(object: Json, keys: readonly string[], field = (_key: string, value: unknown) => value): Json {
  const copy: Json = {};
  for (const key of keys) if (Object.hasOwn(object, key)) copy[key] = field(key, object[key]);
  return copy;
}

// zod's .max() and Ajv's maxLength both count code points; a string past the maximum in UTF-16 units (only astral
// characters can be) is left to zod, so no counting rule of either is relied on where they could differ.
const withinUnits = (text: string | undefined, max: number) => text === undefined || text.length <= max;

/**
 * A URL `z.url({ protocol })` accepts and hands back unchanged: no
 * surrounding space or tab or newline (zod would trim them out), one the URL
 * parser reads, of an allowed protocol; for zod's own http pattern, with "://"
 * as zod then requires. Anything else is zod's to judge.
 */
function plainUrl(value: string, protocols: RegExp, max: number): boolean {
  if (value.length > max || value !== value.trim() || /[\t\n\r]/.test(value)) return false;
  if (protocols.source === HTTP_PROTOCOLS.source && !/^https?:\/\//i.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return protocols.test(url.protocol.endsWith(":") ? url.protocol.slice(0, -1) : url.protocol);
}
