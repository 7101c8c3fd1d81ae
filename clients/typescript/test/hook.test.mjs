// The hook commands' local store and their fault rule, without a gate: the
// store keeps the current session and removes sessions past their TTL, then
// the oldest while over the cap; a hook that cannot decide prints nothing and
// exits 0, so the agent gets its output unchanged.
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

/** A session directory holding `bytes` bytes, last touched `ageMs` ago. */
function session(root, id, bytes, ageMs) {
  const dir = join(root, hex(id));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "original.txt");
  writeFileSync(file, "x".repeat(bytes));
  const at = (Date.now() - ageMs) / 1000;
  utimesSync(file, at, at);
  utimesSync(dir, at, at);
}

describe("the hook store", () => {
  it("reads its root, cap and TTL from the environment, and is off without a root", () => {
    assert.equal(hookStoreOptions({}), null);
    assert.deepEqual(
      hookStoreOptions({
        OFFLOAD_GATE_RECALL_DIR: "/r",
        OFFLOAD_GATE_RECALL_MAX_MB: "2",
        OFFLOAD_GATE_RECALL_TTL_HOURS: "1",
      }),
      { root: "/r", maxBytes: 2 * 1024 * 1024, ttlMs: 3_600_000 },
    );
    assert.equal(
      hookStoreOptions({ OFFLOAD_GATE_RECALL_DIR: "/r", OFFLOAD_GATE_RECALL_MAX_MB: "-5" }).maxBytes,
      1024 ** 3,
    );
  });

  it("removes sessions past the TTL, then the oldest while over the cap, and never the current one", async () => {
    const root = mkdtempSync(join(tmpdir(), "offload-store-"));
    const hour = 3_600_000;
    session(root, "expired", 10, 5 * hour);
    session(root, "old", 400, 2 * hour);
    session(root, "newer", 400, 1 * hour);
    session(root, "current", 400, 3 * hour);
    const store = new HookStore({ root, maxBytes: 1_000, ttlMs: 4 * hour }, "current");
    assert.equal(await store.tidy(), 800);
    assert.deepEqual(readdirSync(root).sort(), [hex("current"), hex("newer")].sort());
    assert.equal(await store.fits(60), true, "800 bytes and 180 more fit under 1,000");
    assert.equal(await store.fits(100), false, "800 bytes and 300 more do not");
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
