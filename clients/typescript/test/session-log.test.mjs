// OffloadSession's opt-in session log and its bill's usage, against a
// scripted gate (fetch), no network: the log a loop writes is replay's own
// shape (the repository's `npm run replay` reads it with no issue and prices
// it), and a usage count that cannot be read is named, never billed as zero.
// Runs on the built dist/ with `node --test`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createGateClient, defaultStub, hashText, OffloadSession } from "../dist/index.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const json = (body) =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

/** A gate that fires on the outputs named in `fire`, plans to stub `plan`, and accepts every report. */
function scriptedGate({ fire = [], plan = [], clearingId } = {}) {
  const sent = [];
  let n = 0;
  const fetch = async (url, init) => {
    const path = new URL(url).pathname;
    const body = JSON.parse(init.body);
    sent.push({ path, body });
    const id = `dec_0_${(++n).toString(16).padStart(32, "0")}`;
    if (path === "/v1/gate") {
      const yes = fire.includes(body.tool_name);
      return json({ fire: yes, reason_code: yes ? "net_positive" : "net_not_positive", decision_id: id });
    }
    if (path === "/v1/plan")
      return json({ stub: plan, reason_code: "plan_positive", net_saving_usd: 0.1, decision_id: id });
    if (path === "/v1/context-management")
      return json({
        context_management: { edits: [] },
        reason_code: "clearing_positive",
        ...(clearingId ? { decision_id: clearingId } : {}),
      });
    const k = body.items.length;
    return json({
      results: body.items.map(() => ({ status: "accepted" })),
      accepted: k,
      unknown_decision: 0,
      conflict: 0,
      invalid: 0,
    });
  };
  return {
    gate: createGateClient({ baseUrl: "http://gate.test", fetch }),
    sent: (path) => sent.filter((s) => s.path === path).map((s) => s.body),
  };
}

// The Opus row of pricing.seed.json, $ per million tokens: what replay prices the recorded usage at.
const OPUS = { input: 5, output: 25, cache_read: 0.5, cache_write: 6.25, cache_write_1h: 10 };
const u = (input, read, write5m, write1h, output = 40) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write5m + write1h,
  cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
});

/** `npm run replay -- FILE --json`, the repository's own CLI, on one log file. */
function replay(path) {
  const tsx = join(ROOT, "node_modules/tsx/dist/cli.mjs");
  const run = spawnSync(process.execPath, [tsx, "scripts/replay/cli.ts", path, "--json"], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

describe("the session log", () => {
  it("hashes content exactly as replay's parser does, on the vectors both clients share", () => {
    const { log_hash_vectors: vectors } = JSON.parse(readFileSync(join(ROOT, "clients/constants.json"), "utf8"));
    assert.ok(vectors.length >= 4);
    for (const [text, hash] of vectors) assert.equal(hashText(text), hash, JSON.stringify(text));
  });

  it("writes one line per model call in replay's shape, which npm run replay reads with no issue and prices as billed", async () => {
    const { gate } = scriptedGate({ fire: ["web_fetch"], plan: ["c2"] });
    const lines = [];
    const session = new OffloadSession({
      gate,
      model: "claude-opus-4-6",
      sessionId: "log-1",
      planEvery: 2,
      log: { write: (line) => lines.push(line) },
    });
    const page = "lorem ipsum dolor sit amet ".repeat(2_000);
    const listing = "src/a.py\nsrc/b.py\n".repeat(800);
    // A loop as the adapters run it: each call's new outputs are offloaded before the next call is observed.
    session.observe(u(3_000, 0, 0, 0));
    const first = await session.offload("c1", "web_fetch", page);
    session.observe(u(10, 0, 18_000, 1_000));
    await session.offload("c2", "list_files", listing);
    session.observe(u(10, 19_000, 4_500, 0));
    session.observe({ output_tokens: 15 }, { turn: false }); // a stream's late output count: the same call's line
    const segments = [{ tokens: 3_000 }, { id: "c1", tokens: 18_000 }, { id: "c2", tokens: 4_500 }];
    assert.ok(session.planDue(4_500));
    assert.deepEqual(await session.plan(segments), ["c2"]);
    session.observe(u(10, 21_000, 100, 0));
    const summary = await session.end();
    assert.equal(lines.length, summary.turns, "one line per model call, the last written at the end");
    assert.ok(lines.every((line) => line.endsWith("\n")));
    const calls = lines.map((line) => JSON.parse(line));
    const stub1 = defaultStub({
      id: "c1",
      toolName: "web_fetch",
      chars: page.length,
      recallToolName: "recall_tool_output",
    });
    const stub2 = defaultStub({
      id: "c2",
      toolName: "list_files",
      chars: listing.length,
      recallToolName: "recall_tool_output",
    });
    assert.deepEqual(
      calls.map((c) => c.input.map((p) => [p.call_id, p.chars, p.hash])),
      [
        [],
        [["c1", stub1.length, hashText(stub1)]],
        [
          ["c1", stub1.length, hashText(stub1)],
          ["c2", listing.length, hashText(listing)],
        ],
        [
          ["c1", stub1.length, hashText(stub1)],
          ["c2", stub2.length, hashText(stub2)],
        ],
      ],
      "each call's input as the history held it: c1 stubbed on entry, c2 in full until the plan stubbed it",
    );
    assert.equal(first, stub1);
    assert.deepEqual(calls[1].usage, {
      input: 10,
      cache_read: 0,
      cache_write_5m: 18_000,
      cache_write_1h: 1_000,
      output: 40,
    });
    assert.equal(calls[2].usage.output, 55, "the late output count lands on its own call's line");
    assert.ok(
      calls.every((c) => c.trace === "offload-gate/1" && c.session === "log-1" && c.model === "claude-opus-4-6"),
    );
    assert.ok(calls.every((c) => !Number.isNaN(Date.parse(c.timestamp))));

    const dir = mkdtempSync(join(tmpdir(), "offload-log-"));
    writeFileSync(join(dir, "session.jsonl"), lines.join(""));
    const report = replay(join(dir, "session.jsonl"));
    assert.deepEqual(report.issues, []);
    assert.deepEqual(report.skipped, []);
    const [row] = report.sessions;
    assert.deepEqual([row.format, row.session, row.calls], ["offload-log", "log-1", 4]);
    // By hand: 3,030 uncached in, 40,000 read, 22,600 5-minute and 1,000 1-hour writes, 175 out, at the Opus row.
    const byHand =
      (3_030 * OPUS.input +
        40_000 * OPUS.cache_read +
        22_600 * OPUS.cache_write +
        1_000 * OPUS.cache_write_1h +
        175 * OPUS.output) /
      1e6;
    assert.ok(Math.abs(row.check.recorded_usd - byHand) < 1e-12, `${row.check.recorded_usd} vs ${byHand}`);
    assert.ok(report.summary.policies.some((p) => p.name === "keep_everything"));
    assert.ok(report.summary.policies.length > 3, "every policy replayed on the log");
  });

  it("never throws into the loop when the sink fails: the fault goes to onError", async () => {
    const errors = [];
    const { gate } = scriptedGate();
    const session = new OffloadSession({
      gate,
      model: "claude-opus-4-6",
      onError: (e) => errors.push(e),
      log: {
        write() {
          throw new Error("disk full");
        },
      },
    });
    session.observe(u(100, 0, 0, 0));
    session.observe(u(100, 0, 0, 0));
    await session.end();
    assert.deepEqual(
      errors.map((e) => e.message),
      ["disk full", "disk full"],
    );
  });
});

describe("the session's bill", () => {
  it("splits 1-hour writes out of the cache writes it reports, so they are priced at the 1-hour rate", async () => {
    const { gate, sent } = scriptedGate();
    const session = new OffloadSession({ gate, model: "claude-opus-4-6", sessionId: "bill-1" });
    session.observe(u(1_000, 0, 9_000, 3_000));
    session.observe(u(200, 12_000, 500, 0, 60));
    await session.end();
    assert.deepEqual(sent("/v1/sessions")[0].items[0].usage, {
      input_tokens: 1_200,
      output_tokens: 100,
      cache_read_input_tokens: 12_000,
      cache_creation_input_tokens: 12_500,
      cache_creation: { ephemeral_5m_input_tokens: 9_500, ephemeral_1h_input_tokens: 3_000 },
    });
  });

  it("names every usage count it cannot read and sends no bill built on a silent zero", async () => {
    const errors = [];
    const { gate, sent } = scriptedGate();
    const session = new OffloadSession({ gate, model: "claude-opus-4-6", onError: (e) => errors.push(e) });
    session.observe({ input_tokens: "12", output_tokens: 3 });
    session.observe(undefined);
    session.observe({ output_tokens: 1 });
    session.observe({ ...u(10, 0, 5, 0), cache_creation: { ephemeral_1h_input_tokens: 6 } });
    const summary = await session.end();
    assert.deepEqual(summary.usageIssues, [
      'call 1: usage.input_tokens is "12", not a count of tokens',
      "call 2: usage is missing",
      "call 3: usage.input_tokens is missing",
      "call 4: usage.cache_creation.ephemeral_1h_input_tokens exceeds usage.cache_creation_input_tokens",
    ]);
    assert.equal(summary.turns, 4, "the turns still count for the outcomes");
    assert.deepEqual(sent("/v1/sessions"), []);
    assert.match(errors.at(-1).message, /bill was not sent.*call 1: usage\.input_tokens is "12"/);
  });
});

describe("what server-side clearing cleared", () => {
  const edits = [
    { type: "clear_tool_uses_20250919", clearedToolUses: 2, clearedInputTokens: 30_000 },
    { type: "clear_tool_uses_20250919", clearedToolUses: 1, clearedInputTokens: 9_000 },
  ];

  it("is the outcome of the clearing decision, when the gate answered with an id", async () => {
    const clearingId = `dec_0_${"c".repeat(32)}`;
    const { gate, sent } = scriptedGate({ clearingId });
    const session = new OffloadSession({ gate, model: "claude-opus-4-6" });
    session.observe(u(100, 0, 0, 0));
    await session.contextManagement([{ tokens: 8_000 }, { id: "toolu_1", tokens: 42_000, tool_name: "web_fetch" }]);
    session.observe(u(100, 8_000, 0, 0));
    session.clearingApplied(edits);
    session.observe(u(100, 8_000, 0, 0));
    const summary = await session.end();
    assert.deepEqual(sent("/v1/outcomes")[0].items, [
      {
        decision_id: clearingId,
        turns_after: 2,
        cached_turns: 2,
        recalled: false,
        cleared_tool_uses: 3,
        cleared_input_tokens: 39_000,
      },
    ]);
    assert.equal(summary.decisions, 1);
  });

  it("keeps the largest one response's clearing, not the sum over responses that each cleared again", async () => {
    const clearingId = `dec_0_${"d".repeat(32)}`;
    const { gate, sent } = scriptedGate({ clearingId });
    const session = new OffloadSession({ gate, model: "claude-opus-4-6" });
    session.observe(u(100, 0, 0, 0));
    await session.contextManagement([{ tokens: 8_000 }, { id: "toolu_1", tokens: 42_000, tool_name: "web_fetch" }]);
    session.clearingApplied(edits);
    session.clearingApplied([{ type: "clear_tool_uses_20250919", clearedToolUses: 2, clearedInputTokens: 30_000 }]);
    session.clearingApplied([{ type: "clear_tool_uses_20250919", clearedToolUses: 4, clearedInputTokens: 52_000 }]);
    await session.end();
    assert.deepEqual(
      [sent("/v1/outcomes")[0].items[0].cleared_tool_uses, sent("/v1/outcomes")[0].items[0].cleared_input_tokens],
      [4, 52_000],
    );
  });

  it("is reported nowhere while the gate records no clearing decision (no id in its answer)", async () => {
    const { gate, sent } = scriptedGate();
    const session = new OffloadSession({ gate, model: "claude-opus-4-6" });
    session.observe(u(100, 0, 0, 0));
    const answer = await session.contextManagement([{ id: "toolu_1", tokens: 42_000, tool_name: "web_fetch" }]);
    session.clearingApplied(edits);
    const summary = await session.end();
    assert.equal(answer.fallback, false, "the gate answered: only its id is missing");
    assert.deepEqual([sent("/v1/outcomes"), summary.decisions], [[], 0]);
  });
});
