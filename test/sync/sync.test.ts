import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { listPending } from "../../src/sync/pending";
import { runPriceSync } from "../../src/sync/scheduled";
import { MAX_SOURCE_BYTES } from "../../src/sync/source";
import { litellmSource, SOURCE_URL } from "../fixtures/litellm-source";
import { putAlias, putRow, resetState } from "../support/helpers";

const OPUS = { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25, cache_write_1h: 10, provider: "anthropic" };
const GPT5 = {
  input: 1.25,
  output: 10,
  cache_read: 0.125,
  aliases: ["gpt-5-2025-08-07"],
  provider: "openai",
  verified_at: "2026-11-01",
};
const O4_MINI = { input: 1.1, output: 4.4, cache_read: 0.275, provider: "openai" };
const RETIRED = { input: 1, output: 2, provider: "openai", retires_at: "2026-01-01", replaced_by: "gpt-5" };

/** Mocks the one outbound fetch; nothing leaves the machine. */
function serve(respond: (request: Request) => Response | Promise<Response>) {
  return vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => respond(new Request(input, init)));
}

/** Runs the Worker's own `scheduled` export, as a Cron Trigger would. */
async function runCron(): Promise<void> {
  const ctx = createExecutionContext();
  await worker.scheduled(
    createScheduledController({ scheduledTime: Date.parse("2026-11-30T06:17:00Z"), cron: "17 */6 * * *" }),
    env,
    ctx,
  );
  await waitOnExecutionContext(ctx);
}

async function pendingModels(): Promise<string[]> {
  return (await listPending(env.PRICING)).changes.map((change) => change.model);
}

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

describe("the scheduled price sync (Cron Trigger), against a mocked source", () => {
  it("stores a changed price, a new model and a removed model as pending changes, and writes no pricing row", async () => {
    const fetched = serve(() => Response.json(litellmSource()));
    const rowsBefore = await env.PRICING.get("pricing:gpt-5");
    await runCron();

    expect(fetched).toHaveBeenCalledTimes(1);
    expect(
      new URL(
        fetched.mock.calls[0]?.[0] instanceof Request
          ? fetched.mock.calls[0][0].url
          : String(fetched.mock.calls[0]?.[0]),
      ).href,
    ).toBe(SOURCE_URL);
    const { changes } = await listPending(env.PRICING);
    expect(changes.map((change) => [change.model, change.kind, change.status])).toEqual([
      ["gpt-5", "changed", "pending"],
      ["gpt-6.1-terra", "added", "pending"],
      ["o4-mini", "removed", "pending"],
    ]);
    const changed = changes[0];
    expect(changed?.fields).toEqual([
      { field: "input", from: 1.25, to: 1.5 },
      { field: "cache_read", from: 0.125, to: 0.15 },
    ]);
    // The proposal keeps the row's names and provider, takes the source's prices, and says where they came from.
    expect(changed?.after).toEqual({
      input: 1.5,
      output: 10,
      cache_read: 0.15,
      aliases: ["gpt-5-2025-08-07"],
      provider: "openai",
      source: SOURCE_URL,
    });
    expect(changed?.before).toEqual(GPT5);
    expect(changed).toMatchObject({ source: SOURCE_URL, detected_at: "2026-11-30T06:17:00.000Z" });
    expect(changes[1]?.after).toEqual({
      input: 1,
      output: 5,
      cache_read: 0.05,
      provider: "openai",
      source: SOURCE_URL,
    });
    expect(changes[2]).toMatchObject({ before: O4_MINI, after: null });
    // Never applied: the rows are as they were.
    expect(await env.PRICING.get("pricing:gpt-5")).toBe(rowsBefore);
    expect(await env.PRICING.get("pricing:gpt-6.1-terra")).toBeNull();
    expect(await env.PRICING.get("pricing:o4-mini")).not.toBeNull();
  });

  it("does not propose removing a row with retires_at: it still maps requests to its replacement", async () => {
    serve(() => Response.json(litellmSource()));
    await runCron();
    expect(await pendingModels()).not.toContain("old-model");
  });

  it("leaves a stored proposal alone when the source says the same again, and withdraws one KV now agrees with", async () => {
    serve(() => Response.json(litellmSource()));
    await runCron();
    const put = vi.spyOn(env.PRICING, "put");
    await runCron();
    expect(put).not.toHaveBeenCalled();

    // KV took the new gpt-5 price some other way: that proposal goes.
    put.mockRestore();
    await putRow("gpt-5", { ...GPT5, input: 1.5, cache_read: 0.15 });
    await runCron();
    expect(await pendingModels()).toEqual(["gpt-6.1-terra", "o4-mini"]);
  });

  it("does nothing, and fetches nothing, when config:gate names no source", async () => {
    await env.PRICING.put("config:gate", "{}");
    const fetched = serve(() => Response.json(litellmSource()));
    await runCron();
    expect(fetched).not.toHaveBeenCalled();
    expect(await pendingModels()).toEqual([]);
  });
});

describe("a failed fetch or a malformed or hostile source: a logged error, no pending change, no write", () => {
  const cases: [string, () => Response | Promise<Response>, RegExp][] = [
    [
      "a network failure",
      () => Promise.reject(new TypeError("connection refused")),
      /fetching .* failed: connection refused/,
    ],
    ["an HTTP error", () => new Response("upstream down", { status: 503 }), /answered HTTP 503/],
    [
      "a file that is not JSON",
      () => new Response('{ "gpt-5": { input_cost', { status: 200 }),
      /the source is not JSON/,
    ],
    ["a JSON array", () => Response.json([1, 2, 3]), /not a JSON object of model entries/],
    ["an object with no model entries", () => Response.json({ sample_spec: {}, note: "hi" }), /has no model entries/],
    [
      "a non-numeric price",
      () =>
        Response.json(
          litellmSource({
            "gpt-5": {
              input_cost_per_token: "0.0000015",
              output_cost_per_token: 1e-5,
              litellm_provider: "openai",
              mode: "chat",
            },
          }),
        ),
      /entry "gpt-5" is malformed: input_cost_per_token is not a number/,
    ],
    [
      "a negative price",
      () =>
        Response.json(
          litellmSource({
            "gpt-6.1-terra": {
              input_cost_per_token: -1e-6,
              output_cost_per_token: 5e-6,
              litellm_provider: "openai",
              mode: "chat",
            },
          }),
        ),
      /input_cost_per_token is out of range/,
    ],
    [
      "a huge price",
      () =>
        Response.json(
          litellmSource({
            "gpt-6.1-terra": {
              input_cost_per_token: 1e300,
              output_cost_per_token: 5e-6,
              litellm_provider: "openai",
              mode: "chat",
            },
          }),
        ),
      /out of range/,
    ],
    [
      "a body over the size limit, streamed without Content-Length",
      () => new Response(hugeStream(MAX_SOURCE_BYTES + 1)),
      /over the 8388608-byte limit/,
    ],
    [
      "a declared Content-Length over the limit",
      () => new Response("{}", { headers: { "content-length": String(MAX_SOURCE_BYTES * 4) } }),
      /over the 8388608-byte limit/,
    ],
    [
      "a deeply nested file",
      () => new Response(`{"gpt-5": ${"[".repeat(200_000)}${"]".repeat(200_000)}}`),
      /has no model entries/,
    ],
    ["a flood of new models", () => Response.json(flood(600)), /would propose \d+ changes, over the limit of 500/],
  ];

  it.each(cases)("refuses %s", async (_name, respond, message) => {
    serve(respond);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const put = vi.spyOn(env.PRICING, "put");
    const del = vi.spyOn(env.PRICING, "delete");
    await runCron();
    expect(logged).toHaveBeenCalledTimes(1);
    expect(String(logged.mock.calls[0]?.[0])).toMatch(/^offload-gate price sync failed: /);
    expect(String(logged.mock.calls[0]?.[0])).toMatch(message);
    expect(put).not.toHaveBeenCalled();
    expect(del).not.toHaveBeenCalled();
    expect(await pendingModels()).toEqual([]);
  });

  it("treats __proto__ and constructor keys as names it skips, touching no prototype", async () => {
    const text = `{"__proto__": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6, "litellm_provider": "openai", "mode": "chat", "polluted": true},
      "constructor": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6, "litellm_provider": "openai", "mode": "chat"},
      "gpt-5": {"input_cost_per_token": 1.25e-6, "output_cost_per_token": 1e-5, "cache_read_input_token_cost": 1.25e-7, "litellm_provider": "openai", "mode": "chat", "__proto__": {"polluted": true}}}`;
    serve(() => new Response(text));
    await runCron();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // gpt-5 matches KV; nothing else is a proposable name: only the rows the file lacks are proposed.
    expect(await pendingModels()).toEqual(["claude-opus-4-6", "o4-mini"]);
  });

  it("refuses a config whose source is not an http(s) URL, logging why", async () => {
    await env.PRICING.put("config:gate", JSON.stringify({ price_source_url: "file:///etc/passwd" }));
    const fetched = serve(() => Response.json(litellmSource()));
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    await runCron();
    expect(fetched).not.toHaveBeenCalled();
    expect(String(logged.mock.calls[0]?.[0])).toMatch(/price_source_url must be an http\(s\) URL/);
  });
});

const SNAPSHOT = { input_cost_per_token: 2e-6, output_cost_per_token: 8e-6, litellm_provider: "openai", mode: "chat" };

/** `count` dated snapshots of one model, all billing the same, as LiteLLM lists them. */
function snapshots(base: string, count: number): Record<string, unknown> {
  const file: Record<string, unknown> = {};
  for (let i = 0; i < count; i += 1) file[`${base}-${String(20_000_000 + i)}`] = SNAPSHOT;
  return file;
}

/** One sync against a mocked source, returning its report. */
async function syncWith(file: Record<string, unknown>) {
  const fetched = serve(() => Response.json(file));
  const report = await runPriceSync(env.PRICING, new Date("2026-11-30T06:17:00Z"), fetch);
  fetched.mockRestore();
  return report;
}

describe("a proposal is checked against the row schema before it is stored", () => {
  it("reports a model with more than 32 same-price snapshots as skipped, with the reason, and stores nothing for it", async () => {
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    const report = await syncWith(litellmSource(snapshots("gpt-flood", 40)));
    expect(report.status).toBe("done");
    if (report.status !== "done") return;
    expect(report.skipped).toEqual([
      { model: "gpt-flood", reason: expect.stringMatching(/^the row it would write is invalid: aliases: .*32/) },
    ]);
    expect(await env.PRICING.get("pending:gpt-flood")).toBeNull();
    expect(await pendingModels()).toEqual(["gpt-5", "gpt-6.1-terra", "o4-mini"]);
    expect((await listPending(env.PRICING)).invalid).toEqual([]);
    expect(String(warned.mock.calls[0]?.[0])).toMatch(
      /^offload-gate price sync skipped 1 source entry that cannot become a valid row: gpt-flood: /,
    );
  });

  it("reports an entry without an output price as skipped, with the reason, and does not take a skipped row for a removed one", async () => {
    const half = { input_cost_per_token: 1e-6, litellm_provider: "openai", mode: "chat" };
    const report = await syncWith(litellmSource({ "gpt-half": half, "o4-mini": half }));
    const reason = expect.stringContaining("no input_cost_per_token and output_cost_per_token");
    expect(report.status === "done" && report.skipped).toEqual([
      { model: "gpt-half", reason },
      { model: "o4-mini", reason },
    ]);
    expect(await env.PRICING.get("pending:gpt-half")).toBeNull();
    // The source still lists o4-mini, unreadably: that is no reason to propose deleting its row.
    expect(await pendingModels()).toEqual(["gpt-5", "gpt-6.1-terra"]);
  });

  it("folds the most same-price snapshots that fit in the 8 MiB source limit in one run, and skips the model", async () => {
    // The case grown to the limit: same-price snapshots of one model, just under 8 MiB.
    const entry = JSON.stringify(SNAPSHOT).length + JSON.stringify("gpt-flood-20000000").length + 2;
    const count = Math.floor((MAX_SOURCE_BYTES - 4_096) / entry);
    const file = litellmSource(snapshots("gpt-flood", count));
    expect(JSON.stringify(file).length).toBeGreaterThan(MAX_SOURCE_BYTES - 8_192);
    expect(JSON.stringify(file).length).toBeLessThanOrEqual(MAX_SOURCE_BYTES);
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const report = await syncWith(file);
    expect(report).toMatchObject({ status: "done", skipped: [{ model: "gpt-flood" }] });
    expect(await pendingModels()).toEqual(["gpt-5", "gpt-6.1-terra", "o4-mini"]);
    // A bound for a loaded machine, not a timing: linear, this is seconds; the quadratic fold took ~10 minutes.
  }, 120_000);
});

describe("a sync withdraws the pending changes it made once the source no longer supports them", () => {
  it("withdraws an added model the source drops", async () => {
    await syncWith(litellmSource());
    expect(await pendingModels()).toContain("gpt-6.1-terra");
    const { "gpt-6.1-terra": _dropped, ...rest } = litellmSource();
    const report = await syncWith(rest);
    expect(report.status === "done" && report.deleted).toEqual(["gpt-6.1-terra"]);
    expect(await pendingModels()).toEqual(["gpt-5", "o4-mini"]);
  });

  it("withdraws an unreadable entry the sync stored before proposals were checked (40 aliases), and leaves one it did not write", async () => {
    const aliases = Object.keys(snapshots("gpt-flood", 40)).sort();
    const stale = {
      model: "gpt-flood",
      kind: "added",
      status: "pending",
      before: null,
      after: { ...{ input: 2, output: 8, provider: "openai", source: SOURCE_URL }, aliases },
      fields: [],
      source: SOURCE_URL,
      detected_at: "2026-11-29T06:17:00.000Z",
    };
    await env.PRICING.put("pending:gpt-flood", JSON.stringify(stale));
    await env.PRICING.put("pending:by-hand", "{ not json");
    expect((await listPending(env.PRICING)).invalid.map((entry) => entry.model)).toEqual(["by-hand", "gpt-flood"]);

    vi.spyOn(console, "warn").mockImplementation(() => {});
    const report = await syncWith(litellmSource(snapshots("gpt-flood", 40)));
    expect(report.status === "done" && report.deleted).toEqual(["gpt-flood"]);
    expect(await env.PRICING.get("pending:gpt-flood")).toBeNull();
    // Not the sync's: an admin deletes it (DELETE /v1/admin/pending/by-hand).
    expect(await env.PRICING.get("pending:by-hand")).toBe("{ not json");
  });
});

function hugeStream(bytes: number): ReadableStream<Uint8Array> {
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

function flood(count: number): Record<string, unknown> {
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
