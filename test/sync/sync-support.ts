/**
 * @module test/sync/sync-support
 *
 * What the price sync's tests share: the rows local KV starts from, the
 * mocked source (nothing leaves the machine), the Worker's own `scheduled`
 * export run as a Cron Trigger would, and the sources a hostile feed sends.
 *
 * @example
 * useSyncState();
 * serve(() => Response.json(litellmSource()));
 * await runCron();
 */
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, vi } from "vitest";
import worker from "../../src/index";
import { listPending } from "../../src/sync/pending";
import { runPriceSync } from "../../src/sync/scheduled";
import { SOURCE_URL } from "../fixtures/litellm-source";
import { putAlias, putRow, resetState } from "../support/helpers";

export const OPUS = {
  input: 5,
  output: 25,
  cache_read: 0.5,
  cache_write: 6.25,
  cache_write_1h: 10,
  provider: "anthropic",
};
export const GPT5 = {
  input: 1.25,
  output: 10,
  cache_read: 0.125,
  aliases: ["gpt-5-2025-08-07"],
  provider: "openai",
  verified_at: "2026-11-01",
};
export const O4_MINI = { input: 1.1, output: 4.4, cache_read: 0.275, provider: "openai" };
export const RETIRED = { input: 1, output: 2, provider: "openai", retires_at: "2026-01-01", replaced_by: "gpt-5" };

/** Mocks the one outbound fetch; nothing leaves the machine. */
export function serve(respond: (request: Request) => Response | Promise<Response>) {
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => respond(new Request(input, init)));
}

/** Runs the Worker's own `scheduled` export, as a Cron Trigger would. */
export async function runCron(): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ scheduledTime: Date.parse("2026-11-30T06:17:00Z"), cron: "17 */6 * * *" }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

/** The models the sync has proposed, as the pending list names them. */
export async function pendingModels(): Promise<string[]> {
  return (await listPending(env.PRICING)).changes.map((change) => change.model);
}

/**
 * Registers the file's hooks: local KV reset to the four rows, an alias and a
 * config naming the source, before each test; mocks restored after.
 *
 * @example
 * useSyncState();
 */
export function useSyncState(): void {
  beforeEach(async () => {
    await resetState();
    await putRow("claude-opus-4-6", OPUS);
    await putRow("gpt-5", GPT5);
    await putAlias("gpt-5-2025-08-07", "gpt-5");
    await putRow("o4-mini", O4_MINI);
    await putRow("old-model", RETIRED);
    await env.PRICING.put("config:gate", JSON.stringify({ price_source_url: SOURCE_URL }));
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });
}

export const SNAPSHOT = {
  input_cost_per_token: 2e-6,
  output_cost_per_token: 8e-6,
  litellm_provider: "openai",
  mode: "chat",
};

/** `count` dated snapshots of one model, all billing the same, as LiteLLM lists them. */
export function snapshots(base: string, count: number): Record<string, unknown> {
  const file: Record<string, unknown> = {};
  for (let i = 0; i < count; i += 1) file[`${base}-${String(20_000_000 + i)}`] = SNAPSHOT;
  return file;
}

/** One sync against a mocked source, returning its report. */
export async function syncWith(file: Record<string, unknown>) {
  const fetched = serve(() => Response.json(file));
  const report = await runPriceSync(env.PRICING, new Date("2026-11-30T06:17:00Z"), fetch);
  fetched.mockRestore();
  return report;
}

/** A source body of `bytes` spaces, streamed, for the size limit. */
export function hugeStream(bytes: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      controller.enqueue(chunk);
      sent += chunk.byteLength;
    },
  });
}

/** A source listing `count` new models, for the cap on proposals. */
export function flood(count: number): Record<string, unknown> {
  const file: Record<string, unknown> = {};
  for (let i = 0; i < count; i += 1)
    file[`gpt-flood-${i}`] = {
      input_cost_per_token: 1e-6,
      output_cost_per_token: 2e-6,
      litellm_provider: "openai",
      mode: "chat",
    };
  return file;
}
