import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SESSION_IDLE_MS, sessionIdleMs } from "../../src/proxy/session-store";

// How long an observed session waits before it is reported (docs/design/proxy.md §7):
// an hour and five minutes, which only a local gate's variable can shorten (the real
// CLIs' end-to-end tests read the ledger seconds after their session).

describe("the idle time before an observed session is reported", () => {
  it("is 65 minutes when the variable is unset", () => {
    expect(SESSION_IDLE_MS).toBe(65 * 60 * 1000);
    expect(sessionIdleMs({})).toBe(SESSION_IDLE_MS);
  });

  it("is the variable's milliseconds when it names a shorter wait", () => {
    expect(sessionIdleMs({ PROXY_SESSION_IDLE_MS: "2000" })).toBe(2_000);
    expect(sessionIdleMs({ PROXY_SESSION_IDLE_MS: "1" })).toBe(1);
  });

  it("never puts a report off, and ignores a value that is not a whole number of milliseconds", () => {
    for (const raw of ["99999999", "0", "-5", "1.5", "2e3", " 2000", "", "soon"])
      expect(sessionIdleMs({ PROXY_SESSION_IDLE_MS: raw })).toBe(SESSION_IDLE_MS);
    expect(sessionIdleMs({ PROXY_SESSION_IDLE_MS: 2_000 })).toBe(SESSION_IDLE_MS);
  });

  it("sets a session's alarm that far past its last exchange in a deployment without the variable", async () => {
    const stub = env.PROXY_SESSIONS.get(env.PROXY_SESSIONS.idFromName("agents-prod/idle-check"));
    const before = Date.now();
    await stub.record({
      tenant: "agents-prod",
      ledger_session: "idle-check",
      model: "claude-sonnet-4-5",
      at: before,
      decisions: [],
      carried: [],
      usage: null,
    });
    const alarm = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThanOrEqual(before + SESSION_IDLE_MS);
    expect(alarm).toBeLessThanOrEqual(Date.now() + SESSION_IDLE_MS);
  });
});
