import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { listPending } from "../../src/sync/pending";
import { MAX_SOURCE_BYTES } from "../../src/sync/source";
import { litellmSource, SOURCE_URL } from "../fixtures/litellm-source";
import { pendingModels, SNAPSHOT, snapshots, syncWith, useSyncState } from "./sync-support";

useSyncState();

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
