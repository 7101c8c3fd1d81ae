/**
 * @module gate/model-names
 *
 * The one way a model name as a caller sends it becomes the name of a pricing
 * row (docs/design/economics.md §10): the exact row, then an alias, then the
 * name with the routing prefixes LiteLLM, OpenRouter and the clouds put in
 * front removed (`openrouter/anthropic/claude-sonnet-4`), then with a dated
 * suffix removed (`-20250514`, `@20250514`, `-2025-05-14`, `-latest`,
 * Bedrock's `-v1:0`). Each later step is tried only when every earlier one
 * found nothing; a step whose candidates name two different rows is
 * ambiguous and answers so, never a guess.
 *
 * Pure: the caller says which names exist (a KV read, a seed's map). The
 * candidates of a name are worked out once per name and held in a bounded
 * map, so a hot name costs one map read.
 */

/** How a name was found: as sent, through an alias, or after removing a routing prefix and/or a dated suffix. */
export const RESOLVED_FROM = [
  "exact",
  "alias",
  "routing_prefix",
  "dated_suffix",
  "routing_prefix_and_dated_suffix",
] as const;

/** How a name was found (RESOLVED_FROM). */
export type ResolvedFrom = (typeof RESOLVED_FROM)[number];

/**
 * The routing prefixes a name may carry, as LiteLLM and OpenRouter spell
 * them (`provider/`), compared in lower case. Several may nest.
 */
export const ROUTING_PREFIXES: readonly string[] = [
  "openrouter",
  "litellm_proxy",
  "openai",
  "azure",
  "azure_ai",
  "anthropic",
  "bedrock",
  "bedrock_converse",
  "converse",
  "invoke",
  "vertex_ai",
  "vertex_ai_beta",
  "google",
  "gemini",
  "deepseek",
  "groq",
  "together_ai",
  "togethercomputer",
  "fireworks_ai",
  "accounts/fireworks/models",
  "mistral",
  "cohere",
  "xai",
  "x-ai",
  "perplexity",
  "deepinfra",
  "cerebras",
  "sambanova",
  "nvidia_nim",
  "ollama",
  "ollama_chat",
  "hosted_vllm",
  "github",
  "github_copilot",
  "moonshot",
  "moonshotai",
  "qwen",
  "dashscope",
  "meta-llama",
  "z-ai",
  "zai",
  // The AI SDK's and OpenAgents' provider ids: `@google/gemini-3-pro-preview`.
  "@google",
  "@anthropic",
  "@openai",
  "google-vertex",
];

// Bedrock writes the vendor (and a cross-region inference profile) as a dotted
// prefix: `us.anthropic.claude-sonnet-4-20250514-v1:0`.
const BEDROCK_PREFIX =
  /^(?:(?:us|eu|apac|jp|au|global|us-gov)\.)?(?:anthropic|meta|amazon|mistral|cohere|ai21|deepseek|openai|qwen|writer)\./;

// Longest first, so `accounts/fireworks/models/` is removed whole.
const PREFIXES = [...ROUTING_PREFIXES].sort((a, b) => b.length - a.length).map((p) => `${p}/`);

// The suffixes a provider dates or versions a snapshot with; each names the undated model's prices.
// Bedrock's version needs its colon (`-v1:0`): a bare `-v3` is part of a name (`deepseek-v3`).
const DATED_SUFFIX = /(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2}|-latest|-v\d+:\d+)$/;

/** The names a step tries, in order of how little each removes. */
export interface NameCandidates {
  /** After one, two, … routing prefixes removed (and a Bedrock vendor prefix), each once. */
  routing_prefix: readonly string[];
  /** Those names and the name itself with a dated suffix removed: [name, resolved_from]. */
  dated_suffix: readonly (readonly [string, "dated_suffix" | "routing_prefix_and_dated_suffix"])[];
}

const MAX_HELD = 4_096;
const held = new Map<string, NameCandidates>();

/**
 * The candidate names of `name`, step by step: held per name (bounded), so
 * a name seen before costs a map read.
 *
 * @example
 * nameCandidates("openrouter/anthropic/claude-sonnet-4-20250514").routing_prefix
 * // ["anthropic/claude-sonnet-4-20250514", "claude-sonnet-4-20250514"]
 */
export function nameCandidates(name: string): NameCandidates {
  let candidates = held.get(name);
  if (candidates === undefined) {
    candidates = Object.freeze(buildCandidates(name));
    if (held.size >= MAX_HELD) held.delete(held.keys().next().value as string);
    held.set(name, candidates);
  }
  return candidates;
}

function buildCandidates(name: string): NameCandidates {
  const stripped: string[] = [];
  let rest = name;
  for (;;) {
    const lower = rest.toLowerCase();
    const prefix = PREFIXES.find((p) => lower.startsWith(p) && rest.length > p.length);
    if (prefix === undefined) break;
    rest = rest.slice(prefix.length);
    stripped.push(rest);
  }
  const bedrock = BEDROCK_PREFIX.exec(rest.toLowerCase());
  if (bedrock !== null && rest.length > bedrock[0].length) stripped.push(rest.slice(bedrock[0].length));
  // A name in other case than the rows' is the same model: its lower-case form is tried beside it.
  const routing = withLowerCase(stripped);
  const dated: [string, "dated_suffix" | "routing_prefix_and_dated_suffix"][] = [];
  for (const [from, names] of [
    ["dated_suffix", withLowerCase([name])],
    ["routing_prefix_and_dated_suffix", routing],
  ] as const) {
    for (const candidate of names) {
      const undated = undate(candidate);
      if (undated !== candidate && !dated.some(([seen]) => seen === undated)) dated.push([undated, from]);
    }
  }
  return { routing_prefix: routing, dated_suffix: dated };
}

// A Bedrock id may carry both a date and a version (`-20250514-v1:0`): both go.
function undate(name: string): string {
  let rest = name;
  for (let i = 0; i < 2; i++) {
    const match = DATED_SUFFIX.exec(rest);
    if (match === null || match.index === 0) break;
    rest = rest.slice(0, match.index);
  }
  return rest;
}

function withLowerCase(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) for (const form of [name, name.toLowerCase()]) if (!out.includes(form)) out.push(form);
  return out;
}

/** What one name is, as the caller's store knows it: a row's own name, an alias of one, or nothing. */
export type NameHit = { canonical: string; via: "exact" | "alias" } | null;

/** What resolving a name found. */
export type NameResolution =
  | { kind: "found"; canonical: string; resolved_from: ResolvedFrom; matched: string }
  | { kind: "ambiguous"; candidates: readonly string[]; resolved_from: ResolvedFrom }
  | { kind: "none" };

/**
 * Resolves `name` against a synchronous store (a seed's rows, a held
 * listing): exact or alias, then the routing-prefix step, then the
 * dated-suffix step.
 *
 * @example
 * const rows = { "claude-sonnet-4": { aliases: [] } };
 * resolveModelName("openrouter/anthropic/claude-sonnet-4", (n) => (n in rows ? { canonical: n, via: "exact" } : null))
 * // { kind: "found", canonical: "claude-sonnet-4", resolved_from: "routing_prefix", matched: "claude-sonnet-4" }
 */
export function resolveModelName(name: string, find: (name: string) => NameHit): NameResolution {
  const own = find(name);
  if (own !== null) return { kind: "found", canonical: own.canonical, resolved_from: own.via, matched: name };
  for (const step of resolutionSteps(name)) {
    const decided = decideStep(step.map(([candidate, from]) => [candidate, from, find(candidate)] as const));
    if (decided !== null) return decided;
  }
  return { kind: "none" };
}

/**
 * The steps after the exact name, each a list of [candidate, resolved_from]
 * to look up together: for a store the caller reads asynchronously (KV), which
 * then hands each step's hits to decideStep.
 *
 * @example
 * resolutionSteps("deepseek/deepseek-chat") // [[["deepseek-chat", "routing_prefix"]], []]
 */
export function resolutionSteps(name: string): (readonly (readonly [string, ResolvedFrom])[])[] {
  const { routing_prefix, dated_suffix } = nameCandidates(name);
  return [routing_prefix.map((candidate) => [candidate, "routing_prefix"] as const), dated_suffix];
}

/**
 * One step's verdict from its hits: nothing found (null: go on to the next
 * step), one row (found), or two rows (ambiguous, naming both).
 *
 * @example
 * decideStep([["gpt-4o", "dated_suffix", { canonical: "gpt-4o", via: "exact" }]])
 * // { kind: "found", canonical: "gpt-4o", resolved_from: "dated_suffix", matched: "gpt-4o" }
 */
export function decideStep(
  hits: readonly (readonly [string, ResolvedFrom, NameHit])[],
): Exclude<NameResolution, { kind: "none" }> | null {
  const found = hits.filter((hit): hit is readonly [string, ResolvedFrom, NonNullable<NameHit>] => hit[2] !== null);
  const first = found[0];
  if (first === undefined) return null;
  const canonicals = [...new Set(found.map((hit) => hit[2].canonical))];
  if (canonicals.length > 1) return { kind: "ambiguous", candidates: canonicals.sort(), resolved_from: first[1] };
  return { kind: "found", canonical: first[2].canonical, resolved_from: first[1], matched: first[0] };
}
