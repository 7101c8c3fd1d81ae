// The hook commands' local store and their fault rule, without a gate: the
// store removes only sessions it marked whose transcript is gone (or past a
// TTL the user set), never the current one; a hook that cannot decide prints
// nothing and exits 0, so the agent gets its output unchanged.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { HookStore, hookStoreOptions } from "../dist/hook-store.js";

const HOOK = fileURLToPath(new URL("../dist/hook.js", import.meta.url));
const hex = (s) => Buffer.from(s, "utf8").toString("hex");

/** A session the store made, holding `bytes` bytes of originals, last touched `ageMs` ago, its transcript there or gone. */
async function session(root, id, bytes, ageMs, transcriptThere) {
  const transcript = join(root, "..", `${hex(id)}-${Date.now()}.jsonl`);
  if (transcriptThere) writeFileSync(transcript, "{}\n");
  const store = new HookStore({ root }, id);
  await store.open(transcript);
  if (bytes > 0) await store.capped.set("original", "x".repeat(bytes));
  const at = (Date.now() - ageMs) / 1000;
  for (const name of readdirSync(store.dir)) utimesSync(join(store.dir, name), at, at);
  utimesSync(store.dir, at, at);
}

describe("the hook store", () => {
  it("reads its root, cap and TTL from the environment, is off without a root, and keeps originals without a TTL the user set", () => {
    assert.equal(hookStoreOptions({}), null);
    assert.deepEqual(
      hookStoreOptions({
        OFFLOAD_GATE_RECALL_DIR: "/r/",
        OFFLOAD_GATE_RECALL_MAX_MB: "2",
        OFFLOAD_GATE_RECALL_TTL_HOURS: "1",
      }),
      { root: "/r", maxBytes: 2 * 1024 * 1024, ttlMs: 3_600_000 },
    );
    const defaults = hookStoreOptions({ OFFLOAD_GATE_RECALL_DIR: "/r", OFFLOAD_GATE_RECALL_MAX_MB: "-5" });
    assert.deepEqual([defaults.maxBytes, defaults.ttlMs], [1024 ** 3, undefined]);
  });

  it("refuses a relative root, which the recall server would resolve elsewhere", () => {
    assert.throws(() => hookStoreOptions({ OFFLOAD_GATE_RECALL_DIR: "offload" }), /must be an absolute path/);
  });

  it("removes only the other sessions whose transcript is gone, or past a TTL the user set, and never the current one", async () => {
    const root = join(mkdtempSync(join(tmpdir(), "offload-store-")), "store");
    const hour = 3_600_000;
    await session(root, "resumable", 400, 1 * hour, true);
    await session(root, "transcript-gone", 400, 1 * hour, false);
    await session(root, "expired", 10, 5 * hour, true);
    await session(root, "current", 100, 60 * hour, false);
    const current = new HookStore({ root }, "current");
    assert.equal(await current.tidy(), 510, "the gone transcript's 400 bytes are freed");
    const left = readdirSync(root).filter((n) => !n.startsWith("."));
    assert.deepEqual(left.sort(), [hex("current"), hex("expired"), hex("resumable")].sort());
    const withTtl = new HookStore({ root, ttlMs: 4 * hour }, "current");
    assert.equal(await withTtl.tidy(), 500, "a TTL the user set removes the session untouched for 5 hours");
    assert.deepEqual(
      readdirSync(root)
        .filter((n) => !n.startsWith("."))
        .sort(),
      [hex("current"), hex("resumable")].sort(),
    );
  });

  it("refuses an original that would pass the cap after making what room it may, and says how full it is", async () => {
    const root = join(mkdtempSync(join(tmpdir(), "offload-store-")), "store");
    await session(root, "resumable", 600, 0, true);
    const store = new HookStore({ root, maxBytes: 1_000 }, "current");
    await store.open();
    await store.capped.set("a", "y".repeat(300));
    await assert.rejects(store.capped.set("b", "y".repeat(300)), /the recall store is full \(900 of 1000 bytes held\)/);
    assert.equal(await store.capped.get("a"), "y".repeat(300));
    assert.equal(await store.capped.get("b"), undefined);
  });

  it("records each decision once and skips a broken line", async () => {
    const root = mkdtempSync(join(tmpdir(), "offload-store-"));
    const store = new HookStore({ root }, "s");
    await store.record({ id: "t1", tool: "Bash", decision_id: "d1", fire: true });
    await store.record({ id: "t1", tool: "Bash", decision_id: "d2", fire: false });
    writeFileSync(join(store.dir, "decisions.jsonl"), '{"id":"t2","tool"\n', { flag: "a" });
    assert.deepEqual(await store.decisions(), [{ id: "t1", tool: "Bash", decision_id: "d1", fire: true }]);
  });
});

describe("offload-gate-hook claude-code on a fault", () => {
  const run = (input, env = {}) =>
    spawnSync(process.execPath, [HOOK, "claude-code"], {
      input,
      encoding: "utf8",
      timeout: 20_000,
      env: {
        ...process.env,
        OFFLOAD_GATE_URL: "http://127.0.0.1:9",
        OFFLOAD_GATE_MODEL: "claude-opus-4-6",
        OFFLOAD_GATE_RECALL_DIR: mkdtempSync(join(tmpdir(), "offload-fault-")),
        ...env,
      },
    });
  const postToolUse = JSON.stringify({
    hook_event_name: "PostToolUse",
    session_id: "s-fault",
    transcript_path: "/nonexistent/transcript.jsonl",
    tool_name: "Bash",
    tool_use_id: "toolu_f1",
    tool_input: { command: "cat big" },
    tool_response: {
      stdout: "y".repeat(200_000),
      stderr: "",
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
    },
  });

  it("prints nothing and exits 0 when the gate is down, the input is not JSON, no store is set, or the agent is unknown", () => {
    for (const result of [
      run(postToolUse),
      run("{not json"),
      run(postToolUse, { OFFLOAD_GATE_RECALL_DIR: "" }),
      spawnSync(process.execPath, [HOOK, "no-such-agent"], { input: postToolUse, encoding: "utf8" }),
    ])
      assert.deepEqual([result.status, result.stdout], [0, ""]);
  });
});
