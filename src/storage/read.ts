/**
 * The gate's reads of KV: pricing rows (through aliases) and the gate
 * config, served from the isolate's RefreshingCache. Every outcome comes
 * back tagged; nothing here throws for a missing, corrupt or unreachable key.
 */
import {
  decideStep,
  type NameHit,
  type PriceEpoch,
  type PriceSchedule,
  type PricingLookup,
  priceInForce,
  priceSchedule,
  type ResolvedFrom,
  resolutionSteps,
} from "../gate";
import { type CachePolicy, type CacheStats, RefreshingCache } from "./cache";
import { checkedConfig, checkedRow, jsonOrUndefined, lazily } from "./checked";
import { forgetListings } from "./listing";
import { aliasKey, DEFAULT_GATE_CONFIG, GATE_CONFIG_KEY, MAX_ROW_BYTES, MODEL_NAME_PATTERN, pricingKey } from "./rules";
import type { GateConfig, PricingRow, RowOutcome } from "./schemas";

// The zod side, loaded only for a stored value the compiled checks refuse (./checked.ts): zod words why.
const zodConfig = lazily(() => import("./schemas/config"));
const zodRow = lazily(() => import("./schemas/parse-row"));

/** A lookup, and whether it was answered from a row past its TTL. */
export interface PricingRead {
  lookup: PricingLookup<PricingRow>;
  stale: { age_seconds: number; detail: string } | null;
}

type WaitUntil = (promise: Promise<unknown>) => void;

// What a load of one model name can find: all of it is worth caching.
export type { RowOutcome };

type ConfigOutcome = { ok: true; config: Readonly<GateConfig> } | { ok: false; detail: string };

// Bounded, so a caller cycling through made-up model names cannot grow the
// isolate; "no such row" answers get a quarter of it and evict only each other.
const rows = new RefreshingCache<RowOutcome>({
  maxEntries: 2_048,
  maxNegative: 512,
  isNegative: (outcome) => outcome.kind !== "row",
});
const configs = new RefreshingCache<ConfigOutcome>({ maxEntries: 1 });

/** The policy the current config sets for every cached KV read. */
export function cachePolicy(config: Readonly<GateConfig>): CachePolicy {
  let policy = policies.get(config);
  if (policy === undefined) {
    policy = Object.freeze({
      ttlMs: config.pricing_cache_ttl_seconds * 1000,
      budgetMs: config.kv_budget_ms,
      maxStaleMs: config.pricing_max_stale_seconds * 1000,
    });
    policies.set(config, policy);
  }
  return policy;
}

// Configs are frozen and replaced whole on each load, so a policy is worked
// out once per config, not once per request.
const policies = new WeakMap<Readonly<GateConfig>, CachePolicy>();

/**
 * Reads the gate config, from the isolate when it holds a fresh copy. A
 * config that cannot be read or parsed is reported, never guessed at.
 *
 * @example
 * const read = await readGateConfig(env.PRICING, ctx.waitUntil.bind(ctx));
 * if (read.ok) read.config.p_recall;
 */
export async function readGateConfig(
  kv: KVNamespace,
  waitUntil: WaitUntil,
): Promise<ConfigOutcome & { stale: PricingRead["stale"] }> {
  const held = configs.peek(GATE_CONFIG_KEY);
  const policy = cachePolicy(held?.ok ? held.config : DEFAULT_GATE_CONFIG);
  const read = await configs.read(GATE_CONFIG_KEY, (ioDone) => loadConfig(kv, ioDone), policy, waitUntil);
  switch (read.kind) {
    case "fresh":
      return freshOnce(freshConfigs, read.value, (value) => ({ ...value, stale: null }));
    case "stale":
      return { ...read.value, stale: { age_seconds: read.ageMs / 1000, detail: read.detail } };
    case "miss":
      return { ok: false, detail: `${GATE_CONFIG_KEY} unavailable: ${read.detail}`, stale: null };
  }
}

/**
 * Finds the row that prices `model`: its own row, or its alias's canonical
 * row. Never throws: a fault or a corrupt row comes back as "unavailable".
 *
 * @example
 * const { lookup } = await readPricing(env.PRICING, "claude-opus-4-5-20251101", config, waitUntil);
 * // lookup: { status: "priced", canonical: "claude-opus-4-5", row: { input: 5, output: 25, ... } }
 */
export async function readPricing(
  kv: KVNamespace,
  model: string,
  config: Readonly<GateConfig>,
  waitUntil: WaitUntil,
): Promise<PricingRead> {
  const read = await rows.read(
    pricingKey(model),
    (ioDone) => loadRow(kv, model, ioDone),
    cachePolicy(config),
    waitUntil,
  );
  switch (read.kind) {
    case "fresh":
      return freshOnce(freshRows, read.value, (value) => ({ lookup: toLookup(value), stale: null }));
    case "stale":
      return { lookup: toLookup(read.value), stale: { age_seconds: read.ageMs / 1000, detail: read.detail } };
    case "miss":
      return { lookup: { status: "unavailable", detail: read.detail }, stale: null };
  }
}

// Each cached row's epochs, built when the row enters the cache (parse or
// write), so that a request only picks the one in force. Keyed by the frozen
// row object: it goes when the row does.
const schedules = new WeakMap<PricingRow, PriceSchedule<PricingRow>>();

/**
 * The prices of `row` in force at `now` (ms): the row itself when it has no
 * scheduled changes (no work), else the epoch its schedule, built at cache
 * fill time, puts at `now`.
 *
 * @example
 * pricesInForce(row, Date.now()) // { from: 1798761600000, effective_at: "2027-01-01T00:00:00Z", row: { input: 1.5, ... } }
 */
export function pricesInForce(row: PricingRow, now: number): PriceEpoch<PricingRow> {
  if (row.scheduled === undefined) return { from: -Infinity, effective_at: null, row };
  return priceInForce(scheduleOf(row), now);
}

function scheduleOf(row: PricingRow): PriceSchedule<PricingRow> {
  let schedule = schedules.get(row);
  if (schedule === undefined) {
    schedule = priceSchedule(row);
    schedules.set(row, schedule);
  }
  return schedule;
}

/** Serves a row this isolate just wrote, without waiting for KV to propagate it. */
export function rememberRow(model: string, row: PricingRow | null): void {
  forgetListings();
  forgetResolved();
  if (row?.scheduled !== undefined) scheduleOf(row);
  rows.set(
    pricingKey(model),
    row === null ? { kind: "absent", written: true } : { kind: "row", row, canonical: model, resolved_from: "exact" },
  );
}

/**
 * Serves an alias this isolate just wrote at once: `canonical` and its row,
 * or (both null) "no such name" for an alias just removed.
 *
 * @example
 * rememberAlias("claude-opus-4-5-20251101", "claude-opus-4-5", row);
 */
export function rememberAlias(alias: string, canonical: string | null, row: PricingRow | null): void {
  forgetListings();
  forgetResolved();
  rows.set(
    pricingKey(alias),
    canonical === null || row === null
      ? { kind: "absent", written: true }
      : { kind: "row", row, canonical, resolved_from: "alias" },
  );
}

// A written row or alias may change what a name with a routing prefix or a
// dated suffix resolves to, or make a name that found nothing resolve: those
// outcomes are read again (a write is rare; exact names keep their entries).
function forgetResolved(): void {
  rows.forgetIf(
    (outcome) =>
      (outcome.kind === "absent" && outcome.written !== true) ||
      (outcome.kind === "row" &&
        outcome.resolved_from !== undefined &&
        outcome.resolved_from !== "exact" &&
        outcome.resolved_from !== "alias"),
  );
}

/**
 * Serves a gate config this isolate just wrote at once (null: the key was
 * removed, so the defaults apply).
 *
 * @example
 * rememberGateConfig({ p_recall: 0.2 });
 */
export function rememberGateConfig(stored: Readonly<Partial<GateConfig>> | null): void {
  configs.set(GATE_CONFIG_KEY, { ok: true, config: Object.freeze({ ...DEFAULT_GATE_CONFIG, ...(stored ?? {}) }) });
}

/** Forgets every cached row and the config (tests; bulk admin changes). */
export function forgetPricing(): void {
  forgetListings();
  rows.clear();
  configs.clear();
}

/** Cache counters of this isolate. */
export function pricingCacheStats(): { rows: CacheStats; config: CacheStats; cached_rows: number } {
  return { rows: { ...rows.stats }, config: { ...configs.stats }, cached_rows: rows.size };
}

// A fresh read answers the same frozen object for as long as the cache holds
// the value it came from: no copy per request of what did not change.
const freshConfigs = new WeakMap<ConfigOutcome, ConfigOutcome & { stale: null }>();
const freshRows = new WeakMap<RowOutcome, PricingRead>();

function freshOnce<K extends object, V>(held: WeakMap<K, V>, value: K, make: (value: K) => V): V {
  let answer = held.get(value);
  if (answer === undefined) {
    answer = Object.freeze(make(value));
    held.set(value, answer);
  }
  return answer;
}

function toLookup(outcome: RowOutcome): PricingLookup<PricingRow> {
  switch (outcome.kind) {
    case "row":
      return {
        status: "priced",
        row: outcome.row,
        canonical: outcome.canonical,
        resolved_from: outcome.resolved_from ?? "exact",
      };
    case "absent":
      return outcome.ambiguous === undefined
        ? { status: "unpriced" }
        : { status: "unpriced", ambiguous: outcome.ambiguous };
    case "invalid":
      return { status: "unavailable", detail: outcome.detail };
  }
}

// Each loader calls ioDone once its KV reads are in: zod, loaded for a value the compiled check refuses, is not KV time.
async function loadConfig(kv: KVNamespace, ioDone: () => void): Promise<ConfigOutcome> {
  const text = await kv.get(GATE_CONFIG_KEY);
  ioDone();
  const outcome = await parseStoredConfig(text);
  // Logged once per load (once per TTL per isolate), not once per request.
  if (!outcome.ok) console.warn(`offload-gate: ${outcome.detail}`);
  return outcome;
}

// A name's row, as the resolver's steps ask (the core's model-names.ts): its
// own row, then its alias's; every name a step tries is read in parallel, and
// the outcome is held under the name as sent, so a resolved name costs its
// reads once per TTL per isolate (docs/design/economics.md §10). ioDone
// comes once the KV reads are in, before any parse.
async function loadRow(kv: KVNamespace, model: string, ioDone: () => void): Promise<RowOutcome> {
  const own = await readName(kv, model);
  if (own !== null) {
    ioDone();
    return parseFound(own, "alias" in own && own.alias !== null ? "alias" : "exact");
  }
  for (const step of resolutionSteps(model)) {
    if (step.length === 0) continue;
    const found = await Promise.all(step.map(([candidate]) => readName(kv, candidate)));
    const decided = decideStep(
      step.map(([candidate, from], i) => {
        const text = found[i];
        const hit: NameHit = text == null ? null : { canonical: text.canonical, via: "exact" };
        return [candidate, from, hit] as const;
      }),
    );
    if (decided === null) continue;
    ioDone();
    if (decided.kind === "ambiguous") return { kind: "absent", ambiguous: decided.candidates };
    const chosen = found[step.findIndex(([candidate]) => candidate === decided.matched)];
    if (chosen != null) return parseFound(chosen, decided.resolved_from);
  }
  return { kind: "absent" };
}

// What KV holds for one name: its own row's text, or the text of the row its alias points to (`alias` set).
type FoundText = { canonical: string } & ({ text: string; alias: string | null } | { invalid: string });

async function readName(kv: KVNamespace, model: string): Promise<FoundText | null> {
  const own = await kv.get(pricingKey(model));
  if (own !== null) return { canonical: model, text: own, alias: null };
  const canonical = await kv.get(aliasKey(model));
  if (canonical === null) return null;
  const target = canonical.trim();
  if (!MODEL_NAME_PATTERN.test(target)) {
    return { canonical: model, invalid: `${aliasKey(model)} does not hold a model name` };
  }
  const row = await kv.get(pricingKey(target));
  if (row === null)
    return { canonical: target, invalid: `${aliasKey(model)} points to ${target}, which has no pricing row` };
  return { canonical: target, text: row, alias: model };
}

async function parseFound(found: FoundText, from: ResolvedFrom): Promise<RowOutcome> {
  if ("invalid" in found) return logIfInvalid({ kind: "invalid", detail: found.invalid });
  const parsed = await parseStoredRow(found.canonical, found.text);
  // An alias key written straight into KV is only trusted when its target names it back (as every write makes them).
  if (found.alias !== null && parsed.kind === "row" && !(parsed.row.aliases ?? []).includes(found.alias)) {
    return logIfInvalid({
      kind: "invalid",
      detail: `${aliasKey(found.alias)} points to ${found.canonical}, whose row does not list ${found.alias} among its aliases`,
    });
  }
  return logIfInvalid(parsed.kind === "row" ? { ...parsed, resolved_from: from } : parsed);
}

/**
 * A stored config's outcome, as ./config.ts's parseGateConfig answers it:
 * the compiled check first, zod only for a config it refuses.
 *
 * @example
 * await parseStoredConfig('{"p_recall": 0.4}') // { ok: true, config: { ...DEFAULT_GATE_CONFIG, p_recall: 0.4 } }
 */
export async function parseStoredConfig(text: string | null): Promise<ConfigOutcome> {
  if (text === null) return { ok: true, config: DEFAULT_GATE_CONFIG };
  const checked = checkedConfig(jsonOrUndefined(text));
  if (checked !== undefined) return { ok: true, config: Object.freeze({ ...DEFAULT_GATE_CONFIG, ...checked }) };
  return (await zodConfig()).parseGateConfig(text);
}

/**
 * A stored row's outcome, as ./parse-row.ts's parseRow answers it: the
 * compiled check first, zod only for a row it refuses.
 *
 * @example
 * await parseStoredRow("gpt-5", '{"input":1.25,"output":10}') // { kind: "row", canonical: "gpt-5", row: {...} }
 */
export async function parseStoredRow(canonical: string, text: string): Promise<RowOutcome> {
  const checked = text.length > MAX_ROW_BYTES ? undefined : checkedRow(jsonOrUndefined(text));
  if (checked !== undefined) return rowOutcome(canonical, checked);
  const parsed = (await zodRow()).parseRow(canonical, text);
  return parsed.kind === "row" ? rowOutcome(canonical, parsed.row) : parsed;
}

/**
 * A parsed row as the cache holds it: frozen, its schedule built once per load, not once per request.
 *
 * @example
 * rowOutcome("gpt-5", { input: 1.25, output: 10 }) // { kind: "row", row: {...}, canonical: "gpt-5" }
 */
export function rowOutcome(canonical: string, parsed: PricingRow): RowOutcome {
  const row = Object.freeze(parsed);
  if (row.scheduled !== undefined) scheduleOf(row);
  return { kind: "row", row, canonical };
}

function logIfInvalid(outcome: RowOutcome): RowOutcome {
  if (outcome.kind === "invalid") console.warn(`offload-gate: ${outcome.detail}`);
  return outcome;
}
