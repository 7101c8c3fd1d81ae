import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { listPending } from "../../src/sync/pending";
import { MAX_SOURCE_BYTES } from "../../src/sync/source";
import { litellmSource, SOURCE_URL } from "../fixtures/litellm-source";
import { putRow } from "../support/helpers";
import { flood, GPT5, hugeStream, O4_MINI, pendingModels, runCron, serve, useSyncState } from "./sync-support";

useSyncState();

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
