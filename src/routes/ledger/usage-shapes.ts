import { z } from "@hono/zod-openapi";
import { MAX_TOKENS } from "../../storage/rules";
import { requiredOr } from "../kernel/openapi";

/**
 * The provider usage shapes a session's `usage` may take (Anthropic
 * Messages, OpenAI Chat Completions and Responses, Gemini `usageMetadata`,
 * Bedrock Converse), their strict schemas, and how a usage object's shape is
 * told by its field names. ./usage.ts turns a parsed one into the bill.
 *
 * @module
 */

/** The provider shapes `usage` may take. */
export const USAGE_SHAPES = ["anthropic", "openai_chat", "openai_responses", "gemini", "bedrock"] as const;
export type UsageShape = (typeof USAGE_SHAPES)[number];

/** Most per-request usage objects one session item may list. */
export const MAX_USAGE_REQUESTS = 1_000;

const tokens = (description: string) =>
  z
    .number({ error: requiredOr("must be a number") })
    .int("must be an integer ≥ 0")
    .nonnegative("must be an integer ≥ 0")
    .max(MAX_TOKENS, `must be at most ${MAX_TOKENS}`)
    .openapi({ description });
// Providers send null (Anthropic, OpenAI) or leave a zero out (Gemini's proto JSON) alike.
const maybe = (description: string) => tokens(description).nullish();
const label = z.string({ error: "must be a string" }).nullish();
// Sub-objects the providers grow over time: only the named counts are read and checked.
const details = <S extends z.ZodRawShape>(shape: S) => z.looseObject(shape, { error: "must be an object" }).nullish();
const modalities = z.array(z.looseObject({}), { error: "must be an array" }).nullish();

const anthropicCounts = {
  input_tokens: tokens("Uncached input tokens."),
  output_tokens: tokens("Output tokens."),
  cache_read_input_tokens: maybe("Input tokens read from the cache."),
  cache_creation_input_tokens: maybe("Input tokens written to the cache: every write, 5-minute and 1-hour alike."),
  cache_creation: details({
    ephemeral_5m_input_tokens: maybe("Written with the 5-minute TTL."),
    ephemeral_1h_input_tokens: maybe("Written with the 1-hour TTL: priced at the row's cache_write_1h."),
  }),
};

const AnthropicIteration = z.looseObject({ ...anthropicCounts, type: label }, { error: "must be an object" });

const AnthropicUsage = z
  .strictObject({
    ...anthropicCounts,
    iterations: z.array(AnthropicIteration, { error: "must be an array" }).nullish().openapi({
      description:
        "Server-side compaction's sampling steps: when present, the bill is their sum (the top level leaves the compaction step out).",
    }),
    server_tool_use: z.looseObject({}, { error: "must be an object" }).nullish(),
    service_tier: label,
    inference_geo: label,
  })
  .openapi("AnthropicUsage", {
    description: "Anthropic Messages `usage` (also what LangChain, the AI SDK and the Claude Agent SDK pass through).",
  });

const OpenAIChatUsage = z
  .strictObject({
    prompt_tokens: tokens("Input tokens, cached ones included."),
    completion_tokens: tokens("Output tokens, reasoning included."),
    total_tokens: maybe("prompt_tokens + completion_tokens; must be that sum when sent."),
    prompt_tokens_details: details({
      cached_tokens: maybe("Of prompt_tokens, read from the cache."),
      cache_write_tokens: maybe(
        "Of prompt_tokens, written to the 30-minute cache (GPT-5.6 and later): billed at the row's cache_write.",
      ),
      audio_tokens: maybe("Not priced apart."),
    }),
    completion_tokens_details: details({ reasoning_tokens: maybe("Of completion_tokens, reasoning.") }),
  })
  .openapi("OpenAIChatUsage", { description: "OpenAI Chat Completions `usage`." });

const OpenAIResponsesUsage = z
  .strictObject({
    input_tokens: tokens("Input tokens, cached ones included."),
    output_tokens: tokens("Output tokens, reasoning included."),
    total_tokens: maybe("input_tokens + output_tokens; must be that sum when sent."),
    input_tokens_details: details({
      cached_tokens: maybe("Of input_tokens, read from the cache."),
      cache_write_tokens: maybe(
        "Of input_tokens, written to the 30-minute cache (GPT-5.6 and later): billed at the row's cache_write.",
      ),
    }),
    output_tokens_details: details({ reasoning_tokens: maybe("Of output_tokens, reasoning.") }),
  })
  .openapi("OpenAIResponsesUsage", {
    description: "OpenAI Responses `usage` (also the Agents SDK's per-response usage).",
  });

const GeminiUsage = z
  .strictObject({
    promptTokenCount: maybe("Input tokens, cached content included."),
    cachedContentTokenCount: maybe("Of promptTokenCount, read from the context cache."),
    candidatesTokenCount: maybe("Output tokens."),
    thoughtsTokenCount: maybe("Thinking tokens: billed as output."),
    toolUsePromptTokenCount: maybe("Tool-use prompt tokens: billed as input."),
    totalTokenCount: maybe(
      "promptTokenCount + candidatesTokenCount + thoughtsTokenCount + toolUsePromptTokenCount; must be that sum when sent.",
    ),
    promptTokensDetails: modalities,
    cacheTokensDetails: modalities,
    candidatesTokensDetails: modalities,
    toolUsePromptTokensDetails: modalities,
    trafficType: label,
  })
  .openapi("GeminiUsage", {
    description: "Gemini `usageMetadata`. Context-cache storage (per hour) is not in it, so not on this bill.",
  });

const BedrockUsage = z
  .strictObject({
    inputTokens: tokens("Uncached input tokens."),
    outputTokens: tokens("Output tokens."),
    totalTokens: maybe(
      "inputTokens + outputTokens + cacheReadInputTokens + cacheWriteInputTokens; must be that sum when sent.",
    ),
    cacheReadInputTokens: maybe("Input tokens read from the cache."),
    cacheWriteInputTokens: maybe("Input tokens written to the cache, every TTL."),
    cacheDetails: z
      .array(
        z.strictObject({
          ttl: z.enum(["5m", "1h"], { error: 'must be "5m" or "1h"' }),
          inputTokens: tokens("Written with this TTL."),
        }),
        { error: "must be an array" },
      )
      .nullish(),
  })
  .openapi("BedrockUsage", { description: "Bedrock Converse `usage`." });

/** Each provider shape's schema, checked strictly: an unknown top-level field is named. */
export const SCHEMAS: Record<UsageShape, z.ZodType> = {
  anthropic: AnthropicUsage,
  openai_chat: OpenAIChatUsage,
  openai_responses: OpenAIResponsesUsage,
  gemini: GeminiUsage,
  bedrock: BedrockUsage,
};

// The field names that tell each shape apart, most specific first: Responses and Anthropic share input_tokens.
const MARKERS: [UsageShape, string[]][] = [
  ["openai_chat", ["prompt_tokens", "completion_tokens", "prompt_tokens_details"]],
  ["openai_responses", ["input_tokens_details", "output_tokens_details", "total_tokens"]],
  [
    "gemini",
    [
      "promptTokenCount",
      "candidatesTokenCount",
      "totalTokenCount",
      "cachedContentTokenCount",
      "thoughtsTokenCount",
      "toolUsePromptTokenCount",
    ],
  ],
  ["bedrock", ["inputTokens", "outputTokens"]],
  ["anthropic", ["input_tokens", "output_tokens"]],
];

/**
 * Which provider's shape a usage object has, by its field names; null when none.
 *
 * @example
 * usageShape({ prompt_tokens: 10, completion_tokens: 2 })            // "openai_chat"
 * usageShape({ input_tokens: 10, output_tokens: 2, total_tokens: 12 }) // "openai_responses"
 * usageShape({ tokens: 12 })                                          // null
 */
export function usageShape(value: Record<string, unknown>): UsageShape | null {
  return MARKERS.find(([, keys]) => keys.some((key) => Object.hasOwn(value, key)))?.[0] ?? null;
}
