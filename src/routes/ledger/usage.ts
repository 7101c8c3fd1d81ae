import { z } from "@hono/zod-openapi";
import type { SessionUsage } from "../../ledger";
import { MAX_USAGE_REQUESTS, SCHEMAS, USAGE_SHAPES, type UsageShape, usageShape } from "./usage-shapes";

/**
 * A session's `usage` exactly as a provider reported it: Anthropic Messages,
 * OpenAI Chat Completions and Responses, Gemini `usageMetadata`, Bedrock
 * Converse. Each shape is told by its own field names, checked strictly (an
 * unknown top-level field is named, never read as a silent zero), and turned
 * into what the bill prices: uncached input, output, cache reads, and cache
 * writes at 5 minutes and at 1 hour. docs/api/ledger.md#post-v1sessions tabulates
 * which field goes where (the shapes and their schemas: ./usage-shapes.ts). Pure apart from zod.
 */
export { MAX_USAGE_REQUESTS, USAGE_SHAPES, type UsageShape, usageShape } from "./usage-shapes";

type Counts = { [key: string]: unknown };
type Issue = { path: (string | number)[]; message: string };
const n = (value: unknown) => (typeof value === "number" ? value : 0);

// One Anthropic usage object (top level or an iteration) as billed; the write split must add up.
function anthropicBilled(u: Counts, path: (string | number)[], issues: Issue[]): SessionUsage {
  const split = u.cache_creation as Counts | null | undefined;
  const total = u.cache_creation_input_tokens;
  let write5m = n(total);
  let write1h = 0;
  if (split) {
    write5m = n(split.ephemeral_5m_input_tokens);
    write1h = n(split.ephemeral_1h_input_tokens);
    if (typeof total === "number" && total !== write5m + write1h) {
      issues.push({
        path: [...path, "cache_creation_input_tokens"],
        message: "must equal cache_creation.ephemeral_5m_input_tokens + ephemeral_1h_input_tokens",
      });
    }
  }
  return {
    input_tokens: n(u.input_tokens),
    output_tokens: n(u.output_tokens),
    cache_read_input_tokens: n(u.cache_read_input_tokens),
    cache_creation_input_tokens: write5m,
    cache_creation_1h_input_tokens: write1h,
  };
}

// An included count (cached of prompt) larger than what includes it is a broken report, never a negative input.
function part(whole: number, of: number, path: (string | number)[], name: string, issues: Issue[]): number {
  if (of > whole) issues.push({ path, message: `must be at most ${name}` });
  return Math.max(0, whole - of);
}

// A reported total must be the sum of the parts the shape's provider adds into it: a total that says
// otherwise means some count was lost or invented on the way, and no bill from it is the provider's.
function total(u: Counts, field: string, parts: readonly string[], issues: Issue[]): void {
  const reported = u[field];
  if (typeof reported !== "number") return;
  const sum = parts.reduce((acc, name) => acc + n(u[name]), 0);
  if (reported !== sum) issues.push({ path: [field], message: `must equal ${parts.join(" + ")} (${sum})` });
}

// Reasoning is billed inside the output count that includes it: more reasoning than output is a broken report.
function reasoning(u: Counts, details: string, output: string, issues: Issue[]): void {
  const inside = n((u[details] as Counts | null | undefined)?.reasoning_tokens);
  if (inside > n(u[output])) issues.push({ path: [details, "reasoning_tokens"], message: `must be at most ${output}` });
}

// OpenAI's input counts the cached tokens and (GPT-5.6 and later) the ones written to the 30-minute
// cache, billed as writes at the row's cache_write (docs/design/economics.md §5.2).
function openaiBilled(u: Counts, whole: string, detailsField: string, output: number, issues: Issue[]): SessionUsage {
  const details = u[detailsField] as Counts | null | undefined;
  const cached = n(details?.cached_tokens);
  const written = n(details?.cache_write_tokens);
  const uncached = part(n(u[whole]), cached, [detailsField, "cached_tokens"], whole, issues);
  if (written > uncached)
    issues.push({ path: [detailsField, "cache_write_tokens"], message: `must be at most ${whole} − cached_tokens` });
  const input = Math.max(0, uncached - written);
  const billed: SessionUsage = { input_tokens: input, output_tokens: output, cache_read_input_tokens: cached };
  if (written > 0) billed.cache_creation_input_tokens = written;
  return billed;
}

const ANTHROPIC_COUNTS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
] as const;

/** The counts a Gemini bill reads: proto JSON leaves zeros out, so any may be absent, but not all. */
const GEMINI_BILLED = [
  "promptTokenCount",
  "candidatesTokenCount",
  "cachedContentTokenCount",
  "thoughtsTokenCount",
  "toolUsePromptTokenCount",
] as const;

const BILLED: Record<UsageShape, (u: Counts, issues: Issue[]) => SessionUsage> = {
  anthropic(u, issues) {
    const steps = (u.iterations as Counts[] | null | undefined) ?? [];
    if (steps.length === 0) return anthropicBilled(u, [], issues);
    // The top level counts the steps other than compaction: none of its counts can exceed the steps' sum.
    for (const field of ANTHROPIC_COUNTS) {
      const sum = steps.reduce((acc, step) => acc + n(step[field]), 0);
      if (n(u[field]) > sum)
        issues.push({ path: [field], message: `must be at most the sum of iterations[].${field} (${sum})` });
    }
    return sumUsage(steps.map((step, i) => anthropicBilled(step, ["iterations", i], issues)));
  },
  openai_chat(u, issues) {
    total(u, "total_tokens", ["prompt_tokens", "completion_tokens"], issues);
    reasoning(u, "completion_tokens_details", "completion_tokens", issues);
    return openaiBilled(u, "prompt_tokens", "prompt_tokens_details", n(u.completion_tokens), issues);
  },
  openai_responses(u, issues) {
    total(u, "total_tokens", ["input_tokens", "output_tokens"], issues);
    reasoning(u, "output_tokens_details", "output_tokens", issues);
    return openaiBilled(u, "input_tokens", "input_tokens_details", n(u.output_tokens), issues);
  },
  gemini(u, issues) {
    if (GEMINI_BILLED.every((field) => typeof u[field] !== "number")) {
      issues.push({
        path: ["promptTokenCount"],
        message: `is required: a usage with none of ${GEMINI_BILLED.join(", ")} has nothing to bill (totalTokenCount is not billed)`,
      });
      return { input_tokens: 0, output_tokens: 0 };
    }
    total(
      u,
      "totalTokenCount",
      ["promptTokenCount", "candidatesTokenCount", "thoughtsTokenCount", "toolUsePromptTokenCount"],
      issues,
    );
    const cached = n(u.cachedContentTokenCount);
    const input =
      part(n(u.promptTokenCount), cached, ["cachedContentTokenCount"], "promptTokenCount", issues) +
      n(u.toolUsePromptTokenCount);
    return {
      input_tokens: input,
      output_tokens: n(u.candidatesTokenCount) + n(u.thoughtsTokenCount),
      cache_read_input_tokens: cached,
    };
  },
  bedrock(u, issues) {
    total(u, "totalTokens", ["inputTokens", "outputTokens", "cacheReadInputTokens", "cacheWriteInputTokens"], issues);
    const ttls = (u.cacheDetails as { ttl: string; inputTokens: number }[] | null | undefined) ?? [];
    const write1h = ttls.filter((d) => d.ttl === "1h").reduce((sum, d) => sum + d.inputTokens, 0);
    const written =
      typeof u.cacheWriteInputTokens === "number"
        ? u.cacheWriteInputTokens
        : ttls.reduce((sum, d) => sum + d.inputTokens, 0);
    if (ttls.length > 0 && ttls.reduce((sum, d) => sum + d.inputTokens, 0) !== written) {
      issues.push({ path: ["cacheWriteInputTokens"], message: "must equal the sum of cacheDetails[].inputTokens" });
    }
    const write5m = Math.max(0, written - write1h);
    return {
      input_tokens: n(u.inputTokens),
      output_tokens: n(u.outputTokens),
      cache_read_input_tokens: n(u.cacheReadInputTokens),
      cache_creation_input_tokens: write5m,
      cache_creation_1h_input_tokens: write1h,
    };
  },
};

/**
 * Usage objects added up field by field.
 *
 * @example
 * sumUsage([{ input_tokens: 1, output_tokens: 2 }, { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 5 }])
 * // { input_tokens: 4, output_tokens: 6, cache_read_input_tokens: 5, cache_creation_input_tokens: 0, cache_creation_1h_input_tokens: 0 }
 */
export function sumUsage(usages: readonly SessionUsage[]): Required<SessionUsage> {
  const total = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_creation_1h_input_tokens: 0,
  };
  for (const u of usages) for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += u[key] ?? 0;
  return total;
}

/** What a parsed `usage` holds: the bill's counts per request as reported (one entry when summed), and their shape. */
export interface BilledUsage {
  shape: UsageShape;
  requests: Required<SessionUsage>[];
  /** Whether `usage` was a list of per-request objects (each then priced at its own size). */
  perRequest: boolean;
}

// One usage object: its shape by its names, its fields checked by that shape's schema, its bill.
function billOne(
  value: unknown,
  path: (string | number)[],
  ctx: z.RefinementCtx,
): [UsageShape, Required<SessionUsage>] | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: "custom", path, message: "must be a provider's usage object" });
    return null;
  }
  const shape = usageShape(value as Record<string, unknown>);
  if (shape === null) {
    ctx.addIssue({
      code: "custom",
      path,
      message: `is not a usage shape the gate knows (${USAGE_SHAPES.join(", ")}): none of their field names is in it`,
    });
    return null;
  }
  const parsed = SCHEMAS[shape].safeParse(value);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      ctx.addIssue({ ...issue, path: [...path, ...issue.path] } as Parameters<typeof ctx.addIssue>[0]);
    return null;
  }
  const issues: Issue[] = [];
  const billed = BILLED[shape](parsed.data as Counts, issues);
  for (const issue of issues) ctx.addIssue({ code: "custom", path: [...path, ...issue.path], message: issue.message });
  return issues.length > 0 ? null : [shape, sumUsage([billed])];
}

const REF: Record<UsageShape, string> = {
  anthropic: "AnthropicUsage",
  openai_chat: "OpenAIChatUsage",
  openai_responses: "OpenAIResponsesUsage",
  gemini: "GeminiUsage",
  bedrock: "BedrockUsage",
};
const refs = USAGE_SHAPES.map((shape) => ({ $ref: `#/components/schemas/${REF[shape]}` }));

/** `usage`: one provider usage object summed over the session, or up to 1,000 of them, one per request, of one shape. */
export const ProviderUsageSchema = z
  .unknown()
  .transform((value, ctx): BilledUsage => {
    const list = Array.isArray(value);
    const items = list ? value : [value];
    if (list && (items.length === 0 || items.length > MAX_USAGE_REQUESTS)) {
      ctx.addIssue({ code: "custom", message: `must hold 1 to ${MAX_USAGE_REQUESTS} usage objects` });
      return z.NEVER;
    }
    const billed = items.map((item, i) => billOne(item, list ? [i] : [], ctx));
    const shapes = new Set(billed.map((b) => b?.[0]));
    if (billed.some((b) => b === null)) return z.NEVER;
    if (shapes.size > 1) {
      ctx.addIssue({ code: "custom", message: "must hold usage objects of one provider's shape" });
      return z.NEVER;
    }
    return { shape: billed[0]![0], requests: billed.map((b) => b![1]), perRequest: list };
  })
  .openapi({
    description:
      "The provider's usage as it came: one object summed over the session's requests, or a list of one object per request (each then priced at its own size, as long-context tiers bill).",
    // anyOf: a bare {input_tokens, output_tokens} is both an Anthropic and a Responses usage.
    anyOf: [...refs, { type: "array", minItems: 1, maxItems: MAX_USAGE_REQUESTS, items: { anyOf: refs } }],
  } as Record<string, unknown>);

/**
 * The shapes' schemas by their component names, for the OpenAPI document (the transform above refers to them).
 *
 * @example
 * for (const [name, schema] of USAGE_COMPONENTS) app.openAPIRegistry.register(name, schema);
 */
export const USAGE_COMPONENTS: [string, z.ZodType][] = USAGE_SHAPES.map((shape) => [REF[shape], SCHEMAS[shape]]);
